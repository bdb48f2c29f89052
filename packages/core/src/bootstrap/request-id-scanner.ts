import type { RequestId } from '@modelcontextprotocol/sdk/types.js';

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COLON = 0x3a;
const COMMA = 0x2c;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const MAX_ID_BYTES = 256;

/**
 * Finds the top-level `"id"` of a JSON-RPC message fed in pieces, in constant memory: a request too
 * large to keep is thrown away while it streams in, yet still gets an answer with its id. The id may
 * come anywhere (the SDK's client writes it last, after the params).
 */
export class RequestIdScanner {
  private depth = 0;
  private inString = false;
  private escaped = false;
  /** At depth 1, the next string is a key. */
  private expectKey = false;
  /** The bytes of the key being read (only its first few: "id" is all that matters). */
  private key: number[] | undefined;
  private keyIsId = false;
  /** After `"id":`, the raw bytes of the value. */
  private idBytes: number[] | undefined;
  private idDone = false;

  feed(chunk: Uint8Array): void {
    for (const byte of chunk) this.step(byte);
  }

  /** The id, if a top-level one was seen and is a string or a number. */
  id(): RequestId | undefined {
    if (this.idBytes === undefined) return undefined;
    try {
      const value: unknown = JSON.parse(Buffer.from(this.idBytes).toString('utf8'));
      return typeof value === 'string' || typeof value === 'number' ? value : undefined;
    } catch {
      return undefined;
    }
  }

  private step(byte: number): void {
    const readingId = this.idBytes !== undefined && !this.idDone;
    if (!this.inString && readingId && this.depth === 1 && (byte === COMMA || byte === CLOSE_BRACE)) {
      this.idDone = true;
    } else if (readingId && this.idBytes!.length < MAX_ID_BYTES) {
      this.idBytes!.push(byte);
    }
    if (this.inString) {
      if (this.escaped) this.escaped = false;
      else if (byte === BACKSLASH) this.escaped = true;
      else if (byte === QUOTE) {
        this.inString = false;
        if (this.key) this.keyIsId = this.key.length === 2 && this.key[0] === 0x69 && this.key[1] === 0x64;
        this.key = undefined;
        return;
      }
      if (this.key && this.key.length < 3) this.key.push(byte);
      return;
    }
    switch (byte) {
      case QUOTE:
        this.inString = true;
        if (this.depth === 1 && this.expectKey) {
          this.key = [];
          this.expectKey = false;
        }
        break;
      case COLON:
        if (this.depth === 1 && this.keyIsId && this.idBytes === undefined) this.idBytes = [];
        this.keyIsId = false;
        break;
      case OPEN_BRACE:
      case OPEN_BRACKET:
        this.depth++;
        if (this.depth === 1 && byte === OPEN_BRACE) this.expectKey = true;
        break;
      case CLOSE_BRACE:
      case CLOSE_BRACKET:
        this.depth--;
        break;
      case COMMA:
        if (this.depth === 1) this.expectKey = true;
        break;
      default:
        break;
    }
  }
}

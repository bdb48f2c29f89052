// Bounded copies of JSON records that stream in too large to keep: ripgrep prints a whole line per
// match, and one minified line can be hundreds of megabytes. Holding, decoding and parsing such a
// record (and splitting it into characters) exhausts the heap; here it is cut while it streams in.

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const LOWER_U = 0x75;
const LOWER_N = 0x6e;

export interface ClipLimits {
  /** Bytes kept of each string value (cut at a character boundary, never inside an escape). */
  stringBytes: number;
  /** Items kept of each array (the rest are counted in `droppedItems`). */
  arrayItems: number;
  /** Bytes of string content kept in the whole record; later strings are cut to nothing. */
  totalStringBytes: number;
}

export const DEFAULT_CLIP_LIMITS: ClipLimits = {
  stringBytes: 64 * 1024,
  arrayItems: 1000,
  totalStringBytes: 1024 * 1024,
};

export interface ClippedRecord {
  /** Valid JSON, the same shape as the record, with long strings and arrays cut short. */
  text: string;
  /** Array items left out (for ripgrep: submatches beyond the kept ones). */
  droppedItems: number;
  /**
   * Length in bytes of the longest string value as it was before clipping, without a final line
   * break (for ripgrep: the matched line). Exact for ripgrep, which escapes only quotes, backslashes
   * and control characters (each one byte of the line).
   */
  longestString: number;
}

/**
 * Copies one JSON record fed in pieces, keeping the first `stringBytes` of each string and the first
 * `arrayItems` of each array, in memory bounded by the limits whatever the record's size.
 */
export class JsonClipper {
  private readonly out: Buffer[] = [];
  /** Kind and item count of each open array/object; for objects, whether a key comes next. */
  private readonly stack: { array: boolean; items: number; keyNext: boolean }[] = [];
  private inString = false;
  /** The string being read is an object key (never cut: keys are short and name the fields). */
  private isKey = false;
  /** Unclipped length of the string being read, and whether it ends (so far) with an escaped \n. */
  private stringLength = 0;
  private endsWithNewline = false;
  private longest = 0;
  /** Escape sequence being read: -1 right after a backslash, then the hex digits left of a `\u`. */
  private escapeLeft = 0;
  private stringKept = 0;
  private totalKept = 0;
  /** Inside a string that is being cut: bytes are skipped until its closing quote. */
  private cutting = false;
  /** Dropping the rest of an array: nesting depth inside the dropped part (0 = at the array itself). */
  private dropDepth = -1;
  private dropInString = false;
  private dropEscaped = false;
  private dropped = 0;

  constructor(private readonly limits: ClipLimits = DEFAULT_CLIP_LIMITS) {}

  feed(chunk: Uint8Array): void {
    const bytes = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.length);
    let keepFrom = 0;
    // Where the next quote and backslash are (-1: none left in the chunk): between them a string's
    // bytes need no look one by one (a minified line is megabytes of them).
    let nextQuote = -2;
    let nextBackslash = -2;
    let i = 0;
    while (i < chunk.length) {
      if (this.inString && this.escapeLeft === 0 && this.dropDepth < 0) {
        if (nextQuote !== -1 && nextQuote < i) nextQuote = bytes.indexOf(QUOTE, i);
        if (nextBackslash !== -1 && nextBackslash < i) nextBackslash = bytes.indexOf(BACKSLASH, i);
        const end = Math.min(
          nextQuote < 0 ? chunk.length : nextQuote,
          nextBackslash < 0 ? chunk.length : nextBackslash,
        );
        const plain = this.plainRun(end - i);
        if (plain > 0) {
          if (this.cutting) {
            if (keepFrom < i) this.out.push(Buffer.from(chunk.subarray(keepFrom, i)));
            keepFrom = i + plain;
          }
          i += plain;
          continue;
        }
      }
      const skip = this.skips(chunk[i]!);
      if (skip && keepFrom < i) this.out.push(Buffer.from(chunk.subarray(keepFrom, i)));
      if (skip) keepFrom = i + 1;
      i++;
    }
    if (keepFrom < chunk.length) this.out.push(Buffer.from(chunk.subarray(keepFrom)));
  }

  /**
   * Takes up to `available` plain bytes of a string (no quote, no backslash) at once, as stringByte
   * would one by one, as far as that needs no look at them: all of them once the string is being cut
   * (skipped), else those that stay within the string's budget (kept). Returns how many it took.
   */
  private plainRun(available: number): number {
    if (available <= 0) return 0;
    let taken = available;
    if (!this.cutting && !this.isKey) {
      const budget = Math.min(
        this.limits.stringBytes,
        this.limits.totalStringBytes - this.totalKept + this.stringKept,
      );
      // Bytes before the budget is reached are kept; the cut itself waits for a character's start.
      taken = Math.min(available, budget - this.stringKept);
      if (taken <= 0) return 0;
    }
    this.stringLength += taken;
    this.endsWithNewline = false;
    if (!this.cutting) {
      this.stringKept += taken;
      if (!this.isKey) this.totalKept += taken;
    }
    return taken;
  }

  finish(): ClippedRecord {
    return {
      text: Buffer.concat(this.out).toString('utf8'),
      droppedItems: this.dropped,
      longestString: this.longest,
    };
  }

  /** Advances the state over one byte; true when the byte is left out of the copy. */
  private skips(byte: number): boolean {
    if (this.dropDepth >= 0) return this.dropping(byte);
    if (this.inString) return this.stringByte(byte);
    const top = this.stack[this.stack.length - 1];
    switch (byte) {
      case QUOTE:
        this.inString = true;
        this.isKey = top?.keyNext === true;
        if (top) top.keyNext = false;
        this.stringKept = 0;
        this.stringLength = 0;
        this.endsWithNewline = false;
        return false;
      case OPEN_BRACE:
      case OPEN_BRACKET:
        if (top) top.keyNext = false;
        this.stack.push({ array: byte === OPEN_BRACKET, items: 1, keyNext: byte === OPEN_BRACE });
        return false;
      case CLOSE_BRACE:
      case CLOSE_BRACKET:
        this.stack.pop();
        return false;
      case COMMA: {
        if (!top) return false;
        if (!top.array) {
          top.keyNext = true;
          return false;
        }
        if (top.items >= this.limits.arrayItems) {
          // Leave out this comma and everything up to the array's closing bracket.
          this.dropDepth = 0;
          this.dropped++;
          return true;
        }
        top.items++;
        return false;
      }
      default:
        return false;
    }
  }

  private stringByte(byte: number): boolean {
    if (this.escapeLeft === -1) {
      // The byte after a backslash: `u` starts four hex digits, anything else ends the escape.
      this.escapeLeft = byte === LOWER_U ? 4 : 0;
      this.endsWithNewline = byte === LOWER_N;
      return this.keepStringByte();
    }
    if (this.escapeLeft > 0) {
      this.escapeLeft--;
      return this.keepStringByte();
    }
    if (byte === QUOTE) {
      this.inString = false;
      this.cutting = false;
      if (!this.isKey)
        this.longest = Math.max(this.longest, this.stringLength - (this.endsWithNewline ? 1 : 0));
      return false;
    }
    this.stringLength++; // one byte of the value (an escape sequence counts once, here)
    this.endsWithNewline = false;
    if (!this.isKey && !this.cutting) {
      const budget = Math.min(
        this.limits.stringBytes,
        this.limits.totalStringBytes - this.totalKept + this.stringKept,
      );
      // Cut before a byte that starts a character or an escape, never inside one.
      if (this.stringKept >= budget && (byte & 0xc0) !== 0x80) this.cutting = true;
    }
    if (byte === BACKSLASH) this.escapeLeft = -1;
    return this.keepStringByte();
  }

  private keepStringByte(): boolean {
    if (this.cutting) return true;
    this.stringKept++;
    if (!this.isKey) this.totalKept++;
    return false;
  }

  private dropping(byte: number): boolean {
    if (this.dropInString) {
      if (this.dropEscaped) this.dropEscaped = false;
      else if (byte === BACKSLASH) this.dropEscaped = true;
      else if (byte === QUOTE) this.dropInString = false;
      return true;
    }
    switch (byte) {
      case QUOTE:
        this.dropInString = true;
        return true;
      case OPEN_BRACE:
      case OPEN_BRACKET:
        this.dropDepth++;
        return true;
      case CLOSE_BRACE:
      case CLOSE_BRACKET:
        if (this.dropDepth === 0) {
          // The dropped array's own closing bracket: keep it and resume copying.
          this.dropDepth = -1;
          this.stack.pop();
          return false;
        }
        this.dropDepth--;
        return true;
      case COMMA:
        if (this.dropDepth === 0) this.dropped++;
        return true;
      default:
        return true;
    }
  }
}

// The o200k tokenizer loads and counts on its own thread: the built
// server over stdio keeps answering ping while the first count of the process runs.
import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import { callTool, pingLatencyDuring, spawnStdioClient } from '@mcp-workbench/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { countInPieces, loadTokenizer } from '../src/tokens/count.js';
import { emptyDir, removeDir } from './helpers.js';

const BIN = fileURLToPath(new URL('../dist/index.cjs', import.meta.url));
let dir: string;
// Plain text (no grammar to load): the tokenizer is the only slow start in the call.
const TEXT = Array.from({ length: 2000 }, (_, i) => `line ${i}: 日本語のテキスト and some words`).join('\n');

beforeAll(async () => {
  dir = await emptyDir();
  await writeFile(path.join(dir, 'notes.txt'), TEXT);
});
afterAll(async () => {
  await removeDir(dir);
});

describe('token counting off the event loop', () => {
  it('ping answers promptly while the first count of the process loads the tokenizer', async () => {
    const server = await spawnStdioClient(process.execPath, [BIN, '--root', dir, '--log-level', 'error']);
    try {
      const started = performance.now();
      const { result, slowestPingMs, pings } = await pingLatencyDuring(
        server.client,
        callTool(server.client, 'check_code_scale', { file_path: 'notes.txt', output_format: 'json' }),
      );
      const callMs = performance.now() - started;
      expect(result.isError, result.text.slice(0, 200)).toBe(false);
      expect((result.structured as { metrics: { tokens: number } }).metrics.tokens).toBe(countTokens(TEXT));
      // On the event loop, the load held ping for most of the call (700 of ~800 ms, quiet). On its own
      // thread the slowest ping is a few ms (quiet): a quarter of the call leaves a wide margin for a
      // loaded machine while still failing a blocked loop.
      expect(pings).toBeGreaterThan(3);
      expect(slowestPingMs).toBeLessThan(callMs / 4);
    } finally {
      await server.close();
    }
  }, 60_000);
});

// Real text of three kinds: the user's Japanese spec (an excerpt of specs/003), the server's own bundle
// (minified by the build) and a published source map (one long line of JSON and base64).
const REAL_TEXTS = [
  new URL('./fixtures/real/search-content-spec.ja.md', import.meta.url),
  new URL('../dist/server-bundle.cjs', import.meta.url),
  new URL('../node_modules/web-tree-sitter/web-tree-sitter.js.map', import.meta.url),
];

describe('the rank table the build writes (dist/o200k_base.ranks)', () => {
  const reference = (text: string) =>
    countInPieces(text, (piece) => countTokens(piece, { disallowedSpecial: new Set() }));

  it("counts exactly as gpt-tokenizer's o200k module, special and non-UTF-8 tokens included", async () => {
    expect(existsSync(fileURLToPath(new URL('../dist/o200k_base.ranks', import.meta.url)))).toBe(true);
    const count = await loadTokenizer(); // reads the binary table (src/tokens/count.ts)
    const texts = [
      TEXT,
      'plain <|endoftext|> <|im_start|>user text',
      'emoji 🎉🇯🇵 and combining é, tabs\t\tand CRLF\r\n',
      '\u0000\u0001\u001f control and \uFFFD replacement',
      'mixed 한국어 Ελληνικά العربية हिन्दी',
      'function f(a, b) {\n  return a + b;\n}\n'.repeat(50),
      // gpt-tokenizer's lookup drops a leading byte-order mark and finds no key with a lone surrogate.
      '\uFEFFusing System;\n\uFEFF\uFEFFnamespace \uFEFF\n\n x\uD800y \uDC00\uDC00 \uD83D',
    ];
    for (const text of texts) expect(count(text)).toBe(reference(text));
  });

  it('counts real text exactly as gpt-tokenizer: Japanese prose, minified code, a source map', async () => {
    const count = await loadTokenizer();
    for (const url of REAL_TEXTS) {
      const text = await readFile(url, 'utf8');
      expect(text.length).toBeGreaterThan(1500);
      expect(count(text), url.pathname).toBe(reference(text));
    }
  }, 60_000);
});

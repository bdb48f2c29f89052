/**
 * Text the tokenizer counts once loaded (on its thread, or on the event loop), while no count waits, so
 * that the first page a call sizes is counted by compiled code: a fresh thread counted a 35 KB page in ~35-60 ms, a warm one
 * in ~6-14 ms. About WARM_UP_CHARS of rows as answers show them (paths, line numbers, code, comments,
 * JSON, prose and Japanese), made from a fixed vocabulary so every start counts the same text.
 */
export const WARM_UP_CHARS = 20_000;

const WORDS = [
  'const',
  'return',
  'function',
  'export',
  'import',
  'await',
  'async',
  'class',
  'interface',
  'typeof',
  'undefined',
  'null',
  'true',
  'false',
  'this',
  'self',
  'def',
  'raise',
  'struct',
  'namespace',
  'toLowerCase',
  'getaddrinfo',
  'ZeroDivisionError',
  'readFileSync',
  'addEventListener',
  'options',
  'value',
  'index',
  'length',
  'result',
  'error',
  'message',
  'node_modules',
  'package',
  'dist',
  'src',
  'TODO',
  'FIXME',
  'Copyright',
  'License',
  'version',
  'callback',
  'prototype',
  'buffer',
  'string',
  '日本語',
  'コメント',
  '検索',
  'données',
  'über',
  '✓',
  '→',
];
const PUNCTUATION = [
  '(',
  ')',
  '{',
  '}',
  '[',
  ']',
  '.',
  ',',
  ';',
  ':',
  '=',
  '=>',
  '+',
  '-',
  '*',
  '/',
  '"',
  "'",
  '`',
  '#',
  '<',
  '>',
  '&&',
  '||',
  '?.',
  '!==',
];
const EXTENSIONS = ['ts', 'js', 'py', 'h', 'json', 'md', 'd.ts', 'cpp', 'pm'];

/**
 * Counts the warm-up text a piece per turn of the event loop (setImmediate): a count asked meanwhile
 * runs at the next turn, never behind the whole warm-up.
 */
export async function warmUpCounting(count: (text: string) => number): Promise<void> {
  for (const piece of warmUpPieces()) {
    count(piece);
    await new Promise((resolve) => setImmediate(resolve));
  }
}

/** Rows of the warm-up counted at one time (a few ms): the thread answers a request between pieces. */
const ROWS_PER_PIECE = 16;

/** The warm-up text in pieces of ROWS_PER_PIECE rows. */
export function warmUpPieces(chars = WARM_UP_CHARS): string[] {
  const rows = warmUpRows(chars);
  const pieces: string[] = [];
  for (let i = 0; i < rows.length; i += ROWS_PER_PIECE)
    pieces.push(rows.slice(i, i + ROWS_PER_PIECE).join(''));
  return pieces;
}

/** The warm-up text's rows: the same every time (a fixed pseudo-random sequence). */
export function warmUpRows(chars = WARM_UP_CHARS): string[] {
  let seed = 0x2545f491;
  const next = (n: number) => {
    seed ^= seed << 13;
    seed ^= seed >>> 17;
    seed ^= seed << 5;
    return (seed >>> 0) % n;
  };
  const word = () => WORDS[next(WORDS.length)]!;
  const rows: string[] = [];
  let length = 0;
  while (length < chars) {
    const file = `${word()}/${word()}_${next(100)}/${word()}.${EXTENSIONS[next(EXTENSIONS.length)]!}`;
    const parts: string[] = [' '.repeat(next(4) * 2)];
    for (let i = 4 + next(12); i > 0; i--) {
      parts.push(next(3) === 0 ? PUNCTUATION[next(PUNCTUATION.length)]! : word());
      if (next(4) === 0) parts.push(String(next(100_000)));
      if (next(2) === 0) parts.push(' ');
    }
    const row = `${file}:${1 + next(5000)}:${parts.join('')}\n`;
    rows.push(row);
    length += row.length;
  }
  return rows;
}

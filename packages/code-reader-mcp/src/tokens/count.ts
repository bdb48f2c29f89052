/**
 * o200k_base token counts (the encoding of GPT-4o and later), loaded on first use so that server start
 * does not pay for the 2 MB rank table.
 */
type CountTokens = (text: string, options?: { disallowedSpecial?: Set<string> }) => number;

let loading: Promise<CountTokens> | undefined;

function load(): Promise<CountTokens> {
  loading ??= import('gpt-tokenizer/encoding/o200k_base').then((module) => module.countTokens as CountTokens);
  return loading;
}

// Source code may contain text such as "<|endoftext|>": count it as plain text, never throw.
const PLAIN_TEXT = { disallowedSpecial: new Set<string>() };

export async function countTokens(text: string): Promise<number> {
  if (text.length === 0) return 0;
  const count = await load();
  return count(text, PLAIN_TEXT);
}

/** Synchronous variant for hot loops after the tokenizer has been loaded once with `loadTokenizer`. */
export async function loadTokenizer(): Promise<(text: string) => number> {
  const count = await load();
  return (text) => (text.length === 0 ? 0 : count(text, PLAIN_TEXT));
}

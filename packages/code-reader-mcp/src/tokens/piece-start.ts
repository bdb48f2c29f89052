/**
 * Whether a text may be cut right before `at` (just after a line break) and counted in two pieces whose
 * counts add up to the whole's: not before whitespace or `/`. No o200k pre-token spans such a cut: only
 * punctuation's `[\r\n/]*` tail runs on past a line break, and only into line breaks and `/`.
 */
export function startsPiece(text: string, at: number): boolean {
  return text.charCodeAt(at) !== 0x2f && !/\s/.test(text[at] as string);
}

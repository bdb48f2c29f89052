// Cutting a document into pieces the page parses one at a time (markdown.ts, BlockStream). No DOM here:
// the tests load it in Node.

/**
 * Where a document can be cut into pieces that markdown-it reads the same alone as in the whole: before
 * a line at column 0 that starts a heading or plain text, after a blank line, outside code fences (such a
 * line ends any list, quote, table or indented code before it). Pieces are at least `minLines` long.
 */
export function chunksOf(source: string, minLines = 40): Array<{ offset: number; text: string }> {
  // Line ends as markdown-it and the server count them: CRLF, LF, and a lone CR (a file from an old Mac).
  const lines = source.split(/\r\n|\n|\r/);
  const chunks: Array<{ offset: number; text: string }> = [];
  let fence: string | undefined;
  let start = 0;
  for (let i = 0; i < lines.length; i++) {
    const text = lines[i]!;
    const marker = /^ {0,3}(`{3,}|~{3,})/.exec(text)?.[1];
    const cut =
      !fence &&
      i - start >= minLines &&
      i > 0 &&
      lines[i - 1]!.trim() === '' &&
      /^(#{1,6}(\s|$)|[A-Za-z\u00c0-\uffff])/.test(text) &&
      !/^\d+[.)]/.test(text);
    if (cut) {
      chunks.push({ offset: start, text: lines.slice(start, i).join('\n') + '\n' });
      start = i;
    }
    if (marker && (!fence || (marker[0] === fence[0] && marker.length >= fence.length)))
      fence = fence ? undefined : marker;
  }
  if (start < lines.length) chunks.push({ offset: start, text: lines.slice(start).join('\n') });
  return chunks;
}

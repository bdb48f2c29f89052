import { readOpened, type FileAccess, type ToolError } from '@mcp-workbench/core/engine';

/**
 * Reads a whole file through the server's file access (opened from its root without following links;
 * pipes and devices refused), refusing one larger than `maxBytes` with the caller's own error.
 */
export async function readCapped(
  files: FileAccess,
  realPath: string,
  shownPath: string,
  maxBytes: number,
  tooLarge: (size: number) => ToolError,
): Promise<Buffer> {
  const opened = await files.openFile(realPath);
  try {
    if (opened.stats.size > maxBytes) throw tooLarge(opened.stats.size);
    // A file that grows past the cap while it is read is refused too (core's LIMIT_EXCEEDED).
    return await readOpened(opened, { maxBytes, shownAs: shownPath });
  } finally {
    await opened.handle.close();
  }
}

// The sheet-image job (jobs.ts): rasterising takes seconds of CPU, so it runs off the event loop.
import type { CaptureJobInput, CaptureJobOutput } from './jobs.js';
import { openedFileAccess } from './opened-file-access.js';

/** Draws sheets to PNG (sheet images). */
export async function captureJob(input: CaptureJobInput, fd: number): Promise<CaptureJobOutput> {
  // Loaded on first use: the renderer (numfmt, resvg's glue, the fonts) is no part of the server's start.
  const { captureWorkbook } = await import('../render/capture.js');
  return captureWorkbook(input.file, openedFileAccess(input.file, fd), input.request);
}

// The sheet-image job (jobs.ts): rasterising takes seconds of CPU, so it runs off the event loop.
// This module is loaded on the first sheet-image call (jobs.ts), the renderer (numfmt, resvg's glue)
// with it: all of a job's code loads before the job starts, so that a cancel can wait for the loading
// to end (JobThread.endThread) and never cuts it short.
import { captureWorkbook } from '../render/capture.js';
import type { CaptureJobInput, CaptureJobOutput } from './jobs.js';
import { openedFileAccess } from './opened-file-access.js';

/** Draws sheets to PNG (sheet images). */
export async function captureJob(input: CaptureJobInput, fd: number): Promise<CaptureJobOutput> {
  return captureWorkbook(input.file, openedFileAccess(input.file, fd), input.request);
}

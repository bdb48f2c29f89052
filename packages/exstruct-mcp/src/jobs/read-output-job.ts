// The job that reads an output file back (jobs.ts): runs on the read thread, which keeps the parsed
// output cached between jobs (read/output-file.ts).
import { readOutput, type ReadAnswer } from '../read/read-output.js';
import type { ReadJobInput } from './jobs.js';
import { openedFileAccess } from './opened-file-access.js';

export async function readJob(input: ReadJobInput, fd: number): Promise<ReadAnswer> {
  return readOutput(input.file, openedFileAccess(input.file, fd), input.request);
}

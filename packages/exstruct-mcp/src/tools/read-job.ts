import type { PathPolicy } from '@mcp-workbench/core';
import type { ReadAnswer, ReadRequest } from '../read/read-output.js';
import type { ExstructToolDeps } from './deps.js';

type AnswerOf<Op extends ReadRequest['op']> = Extract<ReadAnswer, { op: Op }>;

/**
 * One read of an extraction output on the server's read thread: the file is resolved and opened
 * through the PathPolicy here, parsed (and cached) on the thread, and a cancel stops the work at once.
 */
export async function readThroughJob<R extends ReadRequest>(
  deps: ExstructToolDeps,
  paths: PathPolicy,
  outPath: string,
  signal: AbortSignal,
  request: R,
): Promise<AnswerOf<R['op']>> {
  const file = await paths.resolve(outPath, { mustExist: true, kind: 'file' });
  const answer = await deps.jobs.read.run({
    name: 'read',
    input: { file, request },
    open: async () => (await paths.openFile(file)).handle,
    signal,
  });
  return answer as AnswerOf<R['op']>;
}

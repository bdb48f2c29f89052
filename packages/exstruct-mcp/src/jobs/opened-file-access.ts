import { fstat, read } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import { promisify } from 'node:util';
import { ToolError, type FileAccess, type OpenedFile } from '@mcp-workbench/core/engine';

const readAt = promisify(read);
const statOf = promisify(fstat);

/**
 * A job's view of the file the server opened: the same descriptor (threads share the process's file
 * table), read at explicit positions only. The server's thread owns the descriptor and closes it once
 * the job is over — even when the job's thread was terminated in the middle — so close() here only
 * stops further use.
 */
function borrowedHandle(fd: number): FileHandle {
  let open = true;
  const check = () => {
    if (!open) throw new ToolError('INTERNAL', 'The job read its file after closing it.');
  };
  const handle = {
    fd,
    async read(buffer: Buffer, offset: number, length: number, position: number) {
      check();
      return readAt(fd, buffer, offset, length, position); // { bytesRead, buffer }, as FileHandle.read
    },
    async stat() {
      check();
      return statOf(fd);
    },
    async close() {
      open = false;
    },
  };
  return handle as unknown as FileHandle;
}

/**
 * The FileAccess of a job: the one file the server opened (through its PathPolicy) and lent by its
 * descriptor, and nothing else. A job never opens a path by itself, so it cannot read past the policy.
 */
export function openedFileAccess(file: string, fd: number): FileAccess {
  let given = false;
  const refuse = (): never => {
    throw new ToolError('INTERNAL', 'A job may only read the file it was given.');
  };
  return {
    async openFile(requested: string): Promise<OpenedFile> {
      if (given || requested !== file) refuse();
      given = true;
      const handle = borrowedHandle(fd);
      return { handle, path: file, stats: await handle.stat() };
    },
    readFile: refuse,
    writeFileAtomic: refuse,
    withAtomicFile: refuse,
    makeDirectory: refuse,
  };
}

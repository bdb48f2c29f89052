import fsPromises from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';

/**
 * On Windows, renaming over a file fails for a moment while another program has it open without
 * sharing deletion: an antivirus scanner or the search indexer reading the file just written, a backup
 * or sync client. Those errors are retried for about 2 s, as graceful-fs and VS Code do; a file held
 * longer (a workbook open in Excel) still fails, with the error as it is.
 */
const TRANSIENT_ON_WINDOWS = new Set(['EPERM', 'EACCES', 'EBUSY']);
const DELAYS_MS = [10, 20, 40, 80, 160, 320, 640, 800];

export async function renameRetrying(
  from: string,
  to: string,
  platform: NodeJS.Platform = process.platform,
  rename: (from: string, to: string) => Promise<void> = (a, b) => fsPromises.rename(a, b),
): Promise<void> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await rename(from, to);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? '';
      if (platform !== 'win32' || !TRANSIENT_ON_WINDOWS.has(code) || attempt >= DELAYS_MS.length) throw error;
      await sleep(DELAYS_MS[attempt]);
    }
  }
}

import { request } from 'node:http';
import type { LockRecord, ReleaseAnswer } from '../review/ownership.js';

/** How long the owning process has to save and let go. */
const HANDOVER_TIMEOUT_MS = 5000;

/**
 * Asks the server process that holds a session's lock to hand the session over, on its own loopback
 * page server with its page key (read from the lock file, which only this user can read).
 */
export function askToRelease(key: string, holder: LockRecord): Promise<ReleaseAnswer> {
  return new Promise((resolve) => {
    const req = request(
      {
        host: '127.0.0.1',
        port: holder.port,
        method: 'POST',
        path: `/api/sessions/${encodeURIComponent(key)}/handover`,
        headers: {
          Authorization: `Bearer ${holder.token}`,
          'Content-Type': 'application/json',
          'Content-Length': '2',
        },
        timeout: HANDOVER_TIMEOUT_MS,
      },
      (res) => {
        res.resume();
        const status = res.statusCode ?? 0;
        // 200: handed over. A refusal means that server does not serve the session: the lock is stale.
        if (status === 200) resolve('released');
        else if ([403, 404, 410, 421].includes(status)) resolve('gone');
        else resolve('no-answer');
      },
    );
    req.on('timeout', () => {
      req.destroy();
      resolve('no-answer');
    });
    req.on('error', (error: NodeJS.ErrnoException) =>
      resolve(error.code === 'ECONNREFUSED' ? 'gone' : 'no-answer'),
    );
    req.end('{}');
  });
}

// The extraction floor (floor.mjs) run on a thread made for it, timed from the thread's creation: what a
// tool call made right after the handshake pays at least, since the server reads workbooks on a thread of
// their own (the event loop stays free for ping and cancel) and its thread is made for such a call.
import { performance } from 'node:perf_hooks';
import { Worker } from 'node:worker_threads';

const FLOOR_URL = new URL('./floor.mjs', import.meta.url).href;

const THREAD_SOURCE = `
import { parentPort, workerData } from 'node:worker_threads';
const { extractionFloor } = await import(workerData.floor);
parentPort.postMessage(await extractionFloor(workerData.file));
`;

/** Makes a thread, runs the floor of `file` there; resolves with {ms (from the thread's creation), cells}. */
export function threadFloor(file) {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const thread = new Worker(new URL(`data:text/javascript,${encodeURIComponent(THREAD_SOURCE)}`), {
      workerData: { file, floor: FLOOR_URL },
    });
    thread.once('message', (cells) => {
      resolve({ ms: performance.now() - started, cells });
      void thread.terminate();
    });
    thread.once('error', reject);
    // A thread that ends without answering (after the answer, this does nothing).
    thread.once('exit', (code) => reject(new Error(`the floor's thread exited with code ${code}`)));
  });
}

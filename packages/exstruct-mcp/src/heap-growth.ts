// How far the server's heaps may grow past what they hold after a full garbage collection (issue 26 §1).
// V8 lets an old generation grow 1.1-4× past its live size before it collects again (up to 4× on a
// machine with much memory), and an extraction leaves garbage there: what lives for a whole call (the
// package's directory, the workbook's caches, the sheets' results) outlives two scavenges and is
// promoted. The extraction thread of a server that has extracted 1,000 small sheets twice held 15-25 MB
// of old space for ~8 MB alive, and the server's peak was 128-139 MB (openpyxl: 211 MB). With 30 %, the
// old space is collected when it has grown 30 % past its live size: measured through the bin, same
// run (load ~4, 2 cores): peak 128-139 -> 119-123 MB, server CPU per call the same (warm 220-320 ms
// either way); the 1M-cell workbook's calls used the same CPU (550-640 ms) at the same peak (145-158 MB).
import v8 from 'node:v8';

/** The growth, in percent of the live size, of an old generation between full collections. */
export const HEAP_GROWING_PERCENT = 30;

/** Whether limitHeapGrowth capped the growth (the bin); how many works have it lifted now. */
let capped = false;
let lifted = 0;

/**
 * Caps how far every heap of the process (this thread's and the job threads', which read V8's flags
 * as they run) grows past its live size between full collections.
 */
export function limitHeapGrowth(): void {
  v8.setFlagsFromString(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
  capped = true;
}

/**
 * Runs `work` with V8's own heap growth (the cap lifted while it runs, back once the last such work
 * ends): an edit on the server's own thread. A one-cell patch of a 48 MB sheet keeps its inflated bytes
 * (external memory) for the writing pass, and under the cap each ~30 % of growth of the thread's small
 * heap and those bytes started a full collection (a fresh server's first patch: 8 mark-compacts since
 * its start, 4 with this). Through the bin, alternated with the build before (2 x 10 rounds, load 3-4.6):
 * server CPU of the first patch 940-960 -> 880 ms, of the second 870-880 -> 820-840 ms; peak 148-167 ->
 * 149-194 MB (openpyxl: 559). An extraction running meanwhile grows as V8 lets it for that time too
 * (the flag is the process's).
 */
export async function withHeapGrowth<T>(work: () => Promise<T>): Promise<T> {
  if (!capped) return work();
  if (lifted++ === 0) v8.setFlagsFromString('--heap-growing-percent=0');
  try {
    return await work();
  } finally {
    if (--lifted === 0) v8.setFlagsFromString(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
  }
}

// How many cores the rest of the machine leaves idle right now: the machine's busy time (os.cpus()) less
// this process's own (process.cpuUsage()) over the last moments, not the 1-minute load average, which on
// a 2-core machine stays above 1 for a minute after any burst (this server's own extractions included).
import { readFileSync } from 'node:fs';
import os from 'node:os';
import { performance } from 'node:perf_hooks';

interface Sample {
  at: number;
  /** Busy time of all cores, ms. */
  busy: number;
  /** This process's CPU time (every thread), ms. */
  own: number;
  cores: number;
}

function sample(): Sample {
  let busy = 0;
  const cpus = os.cpus();
  for (const cpu of cpus) busy += cpu.times.user + cpu.times.nice + cpu.times.sys + cpu.times.irq;
  const usage = process.cpuUsage();
  return { at: performance.now(), busy, own: (usage.user + usage.system) / 1000, cores: cpus.length };
}

/** Reads shorter than this are left to the next (the kernel counts CPU time in 10 ms ticks). */
const MIN_WINDOW_MS = 40;

let last: Sample | undefined;

/** A window older than this says little about now: a new one starts with the next extraction. */
const MAX_WINDOW_MS = 1000;

/** An extraction starts: spareCores measures from here, unless from a recent enough reading. */
export function markSpareCores(): void {
  if (!last || performance.now() - last.at > MAX_WINDOW_MS) last = sample();
}

/**
 * The cores the rest of the machine left idle since the window started (then a new one starts). A
 * window too short to measure falls back to the threads runnable at this instant (Linux), this one
 * aside; undefined where that is not known either.
 */
export function spareCores(): number | undefined {
  const now = sample();
  const before = last;
  if (!before || now.at - before.at < MIN_WINDOW_MS) {
    last ??= now;
    return runnableNow(now.cores);
  }
  last = now;
  const wall = now.at - before.at;
  const others = Math.max(0, now.busy - before.busy - (now.own - before.own));
  return now.cores - others / wall;
}

/** Cores less the threads runnable now but this one (/proc/loadavg's fourth field, `running/total`). */
function runnableNow(cores: number): number | undefined {
  try {
    const running = Number(readFileSync('/proc/loadavg', 'latin1').split(' ')[3]?.split('/')[0]);
    return Number.isFinite(running) ? cores - Math.max(0, running - 1) : undefined;
  } catch {
    return undefined;
  }
}

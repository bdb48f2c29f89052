// What the extraction thread runs before and for its first job: the extraction job and the warm-up.
// The build bundles this module, with everything it imports but core, into one file
// (scripts/bundle-extract-thread.mjs), which the thread loads when it is there (jobs.ts).
export { extractJob } from './extract-job.js';
export { quickWarmUp, warmUp } from './warm-up.js';

// The edit engine is loaded by the first edit tool called, not at start (issue 26 §1, memory): an
// extraction, which runs on its own thread, never needs it, and the server's thread held it for every
// call (~100 modules: the 1,000-sheet extraction's peak 108-110 -> 100-101 MB with the other lazy
// tool modules). One bundled file (scripts/bundle-edit-engine.mjs) loads in ~55 ms instead of ~125 ms
// for its modules one by one (fresh process, load ~2), which a first patch now pays.
import { importBundled } from '../import-bundled.js';

/** The build's bundle of edit-engine.ts; absent when run from src. */
const BUNDLE = new URL('./edit-engine.bundle.js', import.meta.url);
let engine: Promise<typeof import('./edit-engine.js')> | undefined;

/** The edit engine: the bundle where the build wrote one, else its modules. */
export function loadEditEngine(): Promise<typeof import('./edit-engine.js')> {
  engine ??= importBundled(BUNDLE, () => import('./edit-engine.js'));
  return engine;
}

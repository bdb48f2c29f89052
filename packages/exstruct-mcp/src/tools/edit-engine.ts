// What the edit tools run on the server's thread (exstruct_patch, exstruct_make, the ops catalogue),
// loaded with the first such call, not with the server (issue 26 §1, memory; see load-edit-engine.ts).
// The build bundles this module with everything it imports but core and zod
// (scripts/bundle-edit-engine.mjs).
export { describeOp, listOps } from '../patch/catalogue.js';
export { OP_NAMES } from '../patch/op-schemas.js';
export { parseOps } from '../patch/parse-ops.js';
export { runMake } from '../patch/run-make.js';
export { assertEditable, runPatch } from '../patch/run-patch.js';

import type { AnyTool } from '@mcp-workbench/core';
import type { ExstructToolDeps } from './deps.js';
import { describeOpTool } from './describe-op.js';
import { listOpsTool } from './list-ops.js';
import { makeTool } from './make.js';
import { patchTool } from './patch.js';

/** Editing tools: exstruct_patch, exstruct_make, the ops catalogue (issue 4). */
export function editTools(deps: ExstructToolDeps): AnyTool[] {
  return [patchTool(deps), makeTool(deps), listOpsTool, describeOpTool];
}

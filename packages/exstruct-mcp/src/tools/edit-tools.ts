import type { AnyTool } from '@mcp-workbench/core';
import type { ExstructToolDeps } from '../server.js';

/** Editing tools: exstruct_patch, exstruct_make, the ops catalogue (issue 4). */
export function editTools(_deps: ExstructToolDeps): AnyTool[] {
  return [];
}

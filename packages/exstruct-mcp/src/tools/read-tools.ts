import type { AnyTool } from '@mcp-workbench/core';
import type { ExstructToolDeps } from '../server.js';

/** Extraction and reading tools (issue 3). */
export function readTools(_deps: ExstructToolDeps): AnyTool[] {
  return [];
}

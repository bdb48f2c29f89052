import type { AnyTool } from '@mcp-workbench/core';
import { createToolDeps, type ToolDeps } from './deps.js';
import { checkCodeScaleTool } from './check-code-scale.js';
import { extractCodeSectionTool } from './extract-code-section.js';
import { listFilesTool } from './list-files.js';
import { searchContentTool } from './search-content.js';

/** Every tool of the server, sharing one set of per-server state. */
export function allTools(deps: ToolDeps = createToolDeps()): AnyTool[] {
  return [listFilesTool(deps), searchContentTool(deps), extractCodeSectionTool(deps), checkCodeScaleTool(deps)];
}

import type { AnyTool } from '@mcp-workbench/core';
import { analyzeCodeStructureTool } from './analyze-code-structure.js';
import { checkCodeScaleTool } from './check-code-scale.js';
import { createToolDeps, type ToolDeps } from './deps.js';
import { extractCodeSectionTool } from './extract-code-section.js';
import { getCodeOutlineTool } from './get-code-outline.js';
import { listFilesTool } from './list-files.js';
import { queryCodeTool } from './query-code.js';
import { searchContentTool } from './search-content.js';
import { setProjectPathTool } from './set-project-path.js';

/** Every tool of the server, sharing one set of per-server state. */
export function allTools(deps: ToolDeps = createToolDeps()): AnyTool[] {
  return [
    listFilesTool(deps),
    searchContentTool(deps),
    extractCodeSectionTool(deps),
    checkCodeScaleTool(deps),
    analyzeCodeStructureTool(deps),
    getCodeOutlineTool(deps),
    queryCodeTool(deps),
    setProjectPathTool(deps),
  ];
}

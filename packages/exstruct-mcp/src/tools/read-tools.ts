import type { AnyTool } from '@mcp-workbench/core';
import { captureSheetImagesTool } from './capture-sheet-images.js';
import type { ExstructToolDeps } from './deps.js';
import { extractTool } from './extract.js';
import { getRuntimeInfoTool } from './get-runtime-info.js';
import { readCellsTool } from './read-cells.js';
import { readFormulasTool } from './read-formulas.js';
import { readJsonChunkTool } from './read-json-chunk.js';
import { readRangeTool } from './read-range.js';
import { validateInputTool } from './validate-input.js';

/** Extraction and reading tools (issue 3), in the order of the recommended flow, then sheet images (issue 27). */
export function readTools(deps: ExstructToolDeps): AnyTool[] {
  return [
    validateInputTool,
    extractTool(deps),
    readJsonChunkTool(deps),
    readRangeTool(deps),
    readCellsTool(deps),
    readFormulasTool(deps),
    getRuntimeInfoTool(deps),
    captureSheetImagesTool(deps),
  ];
}

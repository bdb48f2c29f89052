// The extraction engine as a library (no MCP): `import { extractWorkbook } from 'exstruct-mcp/engine'`.
export { extractWorkbook, type ExtractOptions } from './extract/extract-workbook.js';
export { Extraction, type SerializeOptions } from './extract/extraction.js';
export { validateInput, type ValidationResult } from './extract/validate-input.js';
export { EXTRACTION_MODES, MODE_SUMMARY, type ExtractionMode } from './extract/modes.js';
export {
  alpha_to_col_index,
  col_index_to_alpha,
  convertRowKeysToAlpha,
  convertSheetKeysToAlpha,
  convertWorkbookKeysToAlpha,
} from './extract/alpha-col.js';
export type * from './extract/model.js';
export type { CellValue } from './extract/cell-value.js';

import { formatOutput, type FormatOptions, type OutputFormat } from '@mcp-workbench/core/engine';
import { toToonLayout } from './toon-layout.js';

/**
 * Renders an ExStruct document (workbook output, sheet or print-area file, chunk page) as text: JSON and
 * YAML in the model's own shape, TOON in the table layout of `toon-layout.ts` (same information, fewer
 * tokens).
 */
export function renderDocument(doc: object, format: OutputFormat, options: FormatOptions = {}): string {
  const value = format === 'toon' ? toToonLayout(doc as Record<string, unknown>) : doc;
  return formatOutput(value, format, options);
}

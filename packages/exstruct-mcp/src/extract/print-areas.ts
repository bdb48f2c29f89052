import { alphaToColIndex, MAX_COLUMN_INDEX, MAX_ROW } from '../ooxml/cell-ref.js';
import type { DefinedName } from '../ooxml/workbook-part.js';
import type { PrintArea } from './model.js';

const PRINT_AREA = '_xlnm.Print_Area';

/** Splits `'My Sheet'!$A$1:$C$9,'My Sheet'!$E$1:$F$4` at the top-level commas. */
function splitAreas(formula: string): string[] {
  const parts: string[] = [];
  let current = '';
  let quoted = false;
  for (const ch of formula) {
    if (ch === "'") quoted = !quoted;
    if (ch === ',' && !quoted) {
      parts.push(current);
      current = '';
    } else current += ch;
  }
  parts.push(current);
  return parts.map((p) => p.trim()).filter((p) => p !== '');
}

function parseArea(text: string): PrintArea | undefined {
  const bang = text.lastIndexOf('!');
  const ref = (bang >= 0 ? text.slice(bang + 1) : text).replace(/\$/g, '').toUpperCase();
  const cells = /^([A-Z]{1,3})(\d+)(?::([A-Z]{1,3})(\d+))?$/.exec(ref);
  if (cells) {
    const c1 = alphaToColIndex(cells[1]!);
    const r1 = Number(cells[2]);
    const c2 = cells[3] ? alphaToColIndex(cells[3]) : c1;
    const r2 = cells[4] ? Number(cells[4]) : r1;
    return { r1: Math.min(r1, r2), c1: Math.min(c1, c2), r2: Math.max(r1, r2), c2: Math.max(c1, c2) };
  }
  const columns = /^([A-Z]{1,3}):([A-Z]{1,3})$/.exec(ref);
  if (columns) {
    return { r1: 1, c1: alphaToColIndex(columns[1]!), r2: MAX_ROW, c2: alphaToColIndex(columns[2]!) };
  }
  const rows = /^(\d+):(\d+)$/.exec(ref);
  if (rows) return { r1: Number(rows[1]), c1: 0, r2: Number(rows[2]), c2: MAX_COLUMN_INDEX };
  return undefined;
}

/** The print areas of the sheet at `sheetIndex`, from the `_xlnm.Print_Area` defined name. */
export function printAreasOf(definedNames: DefinedName[], sheetIndex: number): PrintArea[] {
  const name = definedNames.find((n) => n.name === PRINT_AREA && n.localSheetId === sheetIndex);
  if (!name) return [];
  return splitAreas(name.formula)
    .map(parseArea)
    .filter((a): a is PrintArea => a !== undefined);
}

// Merging and unmerging ranges. Merging keeps only the top-left value, as Excel does.
import { formatRange, parseRange, type CellRange } from '../../ooxml/cell-ref.js';
import { valueOf } from '../cell-read.js';
import { restoreCell } from '../inverse-ops.js';
import type { PatchOp } from '../op-schemas.js';
import { addressOf, type SheetEdit } from '../sheet-edit.js';
import { rangesOverlap } from '../sheet-parts.js';
import { PatchOpError } from '../types.js';
import { clearContent } from './cell-writes.js';
import { diffItem, sheetOf, type OpHandler } from './op-handler.js';

/** Cleared cells named one by one in the warning; the rest are counted. */
const NAMED_CLEARED_CELLS = 20;

export const mergeCells: OpHandler<'merge_cells'> = (op, ctx) => {
  const { edit } = ctx;
  const { edit: sheet, name } = sheetOf(edit, op.sheet);
  const range = parseRange(op.range);
  const overlapping = sheet.merges.filter((m) => rangesOverlap(m, range));
  if (overlapping.length > 0) {
    throw new PatchOpError(
      `${op.range} overlaps the merged range(s) ${overlapping.map(formatRange).join(', ')}. Unmerge them first (unmerge_cells).`,
      op.range,
    );
  }
  const inverse: PatchOp[] = [
    {
      op: 'restore_design_snapshot',
      sheet: name,
      design_snapshot: { merged_ranges: { scope: op.range, ranges: [] } },
    },
  ];
  const cleared: string[] = [];
  for (const [r, c] of valuesInside(sheet, range)) {
    cleared.push(addressOf(r, c));
    inverse.push(restoreCell(edit, sheet, name, r, c));
    clearContent(edit, sheet, r, c);
  }
  if (cleared.length) {
    const named = cleared.slice(0, NAMED_CLEARED_CELLS).join(', ');
    const more =
      cleared.length > NAMED_CLEARED_CELLS ? ` and ${cleared.length - NAMED_CLEARED_CELLS} more` : '';
    ctx.warnings.push(
      `merge_cells ${name}!${op.range} cleared the values of ${named}${more} (only the top-left value is kept, as in Excel).`,
    );
  }
  sheet.merges = [...sheet.merges, range];
  return {
    items: [diffItem(ctx, op, name, op.range, null, { kind: 'style', value: `merged ${op.range}` })],
    inverse,
  };
};

export const unmergeCells: OpHandler<'unmerge_cells'> = (op, ctx) => {
  const { edit: sheet, name } = sheetOf(ctx.edit, op.sheet);
  const range = parseRange(op.range);
  const removed = sheet.merges.filter((m) => rangesOverlap(m, range));
  if (removed.length === 0)
    ctx.warnings.push(`unmerge_cells ${name}!${op.range}: no merged range intersects it.`);
  sheet.merges = sheet.merges.filter((m) => !rangesOverlap(m, range));
  return {
    items: [diffItem(ctx, op, name, op.range, null, { kind: 'style', value: `unmerged ${removed.length}` })],
    inverse: [
      {
        op: 'restore_design_snapshot',
        sheet: name,
        design_snapshot: { merged_ranges: { scope: op.range, ranges: removed.map(formatRange) } },
      },
    ],
  };
};

/**
 * The cells inside `range` that hold a value, other than its top-left one, in row then column order.
 * Only the cells the sheet has are visited (every row of the range was loaded), so merging a whole
 * sheet costs what the sheet holds, not the 17 billion addresses of A1:XFD1048576.
 */
function valuesInside(sheet: SheetEdit, range: CellRange): Array<[number, number]> {
  const found: Array<[number, number]> = [];
  for (const [r, state] of sheet.rows) {
    if (r < range.start.row || r > range.end.row) continue;
    for (const c of state.cells.keys()) {
      if (c < range.start.col || c > range.end.col) continue;
      if (r === range.start.row && c === range.start.col) continue;
      if (valueOf(sheet, r, c) !== null) found.push([r, c]);
    }
  }
  return found.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
}

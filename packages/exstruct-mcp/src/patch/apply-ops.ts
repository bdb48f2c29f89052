import {
  alphaToColIndex,
  colIndexToAlpha,
  formatRange,
  parseA1,
  parseRange,
  type CellRange,
} from '../ooxml/cell-ref.js';
import { asCellDate, valueOf } from './cell-read.js';
import type { CellState, Scalar } from './cells.js';
import { prepareFormula, translateFormula, type SheetDeletion } from './formula.js';
import {
  arrayRefAt,
  currentNames,
  deletedSheetInverse,
  listCells,
  namesLostWith,
  renameNeighbours,
  restoreCell,
  rewriteLoaded,
  snapshotCells,
} from './inverse-ops.js';
import type { OpOf, PatchOp } from './op-schemas.js';
import { addressOf, SheetEdit } from './sheet-edit.js';
import { rangeContains, rangesOverlap, setColumnAttrs } from './sheet-parts.js';
import type { StyleChange } from './styles.js';
import { PatchOpError, type PatchDiffItem, type PatchValue } from './types.js';
import { setName, undoState } from './undo-state.js';
import { gridRange, type WorkbookEdit } from './workbook-edit.js';
import { ruleFormulas, setRuleFormulas } from './workbook-xml.js';
import { escapeXml } from './xml.js';

export interface ApplyOptions {
  autoFormula: boolean;
}

export interface ApplyResult {
  diff: PatchDiffItem[];
  /** Inverse ops of applied ops, already in the order to apply them (last op first). */
  inverse: PatchOp[];
  warnings: string[];
  /** What the inverse ops cannot restore: worth saying only to a caller who asked for them. */
  undoWarnings: string[];
}

interface OpOutcome {
  items: PatchDiffItem[];
  inverse: PatchOp[];
}

/** Applies ops in order to the in-memory edit; a failing op throws PatchOpError (with its index). */
export function applyOps(edit: WorkbookEdit, ops: readonly PatchOp[], options: ApplyOptions): ApplyResult {
  const diff: PatchDiffItem[] = [];
  const inverseByOp: PatchOp[][] = [];
  const warnings: string[] = [];
  const undoWarnings: string[] = [];
  ops.forEach((op, index) => {
    try {
      const outcome = applyOne(edit, op, index, options, warnings, undoWarnings);
      diff.push(...outcome.items);
      if (outcome.items.some((i) => i.status === 'applied')) inverseByOp.push(outcome.inverse);
    } catch (error) {
      if (error instanceof PatchOpError) throw Object.assign(error, { opIndex: index, op });
      throw error;
    }
  });
  const rich = undoState(edit).richCells;
  if (rich.length)
    undoWarnings.push(
      `Inverse ops restore the text of ${listCells(rich)} but not the formatting runs inside (rich text: bold or coloured parts of the text).`,
    );
  return { diff, inverse: inverseByOp.reverse().flat(), warnings, undoWarnings };
}

function applyOne(
  edit: WorkbookEdit,
  op: PatchOp,
  index: number,
  options: ApplyOptions,
  warnings: string[],
  undoWarnings: string[],
): OpOutcome {
  const item = (
    cell: string | null,
    before: PatchValue | null,
    after: PatchValue | null,
    status: 'applied' | 'skipped' = 'applied',
  ): PatchDiffItem => ({
    op_index: index,
    op: op.op,
    sheet: op.sheet,
    cell,
    before,
    after,
    status,
  });
  switch (op.op) {
    case 'set_value':
    case 'set_value_if':
    case 'set_formula':
    case 'set_formula_if': {
      const { edit: sheet, name } = sheetOf(edit, op.sheet);
      const at = parseA1(op.cell);
      const before = valueOf(sheet, at.row, at.col);
      if (op.op === 'set_value_if' || op.op === 'set_formula_if') {
        if (!matches(before, asCellDate(edit, sheet, at.row, at.col, op.expected ?? null))) {
          warnings.push(
            `Skipped op[${index}] ${op.op} at ${name}!${op.cell}: the cell holds ${show(before)}, expected ${show(op.expected ?? null)}.`,
          );
          return { items: [{ ...item(op.cell, before, before, 'skipped'), sheet: name }], inverse: [] };
        }
      }
      const array = op.op === 'set_formula' ? op.array_range : undefined;
      // A new array formula covers other cells: undo puts the whole range back.
      const inverse =
        array && arrayRefAt(sheet, at.row, at.col) !== array
          ? snapshotCells(edit, sheet, name, parseRange(array))
          : [restoreCell(edit, sheet, name, at.row, at.col)];
      const after =
        op.op === 'set_value' || op.op === 'set_value_if'
          ? writeValue(edit, sheet, at.row, at.col, op.value, options.autoFormula, op.op, valueType(op))
          : writeFormula(edit, sheet, at.row, at.col, op.formula, array ? parseRange(array) : undefined);
      return { items: [{ ...item(op.cell, before, after), sheet: name }], inverse };
    }
    case 'set_range_values': {
      const { edit: sheet, name } = sheetOf(edit, op.sheet);
      const range = parseRange(op.range);
      const inverse = snapshotCells(edit, sheet, name, range);
      // Writing over a whole array formula replaces it (as in Excel); part of one is still refused.
      for (const array of sheet.arrays.filter((a) => rangeInside(a, range)))
        sheet.arrays.splice(sheet.arrays.indexOf(array), 1);
      op.values.forEach((rowValues, r) =>
        rowValues.forEach((value, c) =>
          writeValue(
            edit,
            sheet,
            range.start.row + r,
            range.start.col + c,
            value,
            options.autoFormula,
            op.op,
          ),
        ),
      );
      const size = `${range.end.row - range.start.row + 1}x${range.end.col - range.start.col + 1}`;
      return { items: [{ ...item(op.range, null, { kind: 'value', value: size }), sheet: name }], inverse };
    }
    case 'fill_formula': {
      const { edit: sheet, name } = sheetOf(edit, op.sheet);
      const range = parseRange(op.range);
      const base = parseA1(op.base_cell);
      const inverse = snapshotCells(edit, sheet, name, range);
      const body = op.formula.slice(1);
      for (let r = range.start.row; r <= range.end.row; r++) {
        for (let c = range.start.col; c <= range.end.col; c++) {
          writeFormula(edit, sheet, r, c, `=${translateFormula(body, r - base.row, c - base.col)}`);
        }
      }
      return {
        items: [{ ...item(op.range, null, { kind: 'formula', value: op.formula }), sheet: name }],
        inverse,
      };
    }
    case 'add_sheet': {
      const name = op.sheet;
      checkSheetName(edit, name);
      const ref = {
        name,
        entry: undefined,
        edit: new SheetEdit(name, true, edit.pkg?.conformance),
        state: op.state ?? 'visible',
      };
      const position = Math.min(op.position ?? edit.sheets.length, edit.sheets.length);
      edit.sheets.splice(position, 0, ref);
      return {
        items: [item(null, null, { kind: 'sheet', value: name })],
        inverse: [{ op: 'delete_sheet', sheet: name }],
      };
    }
    case 'rename_sheet': {
      const ref = edit.find(op.sheet);
      if (!ref)
        throw new PatchOpError(
          `Sheet "${op.sheet}" does not exist. Sheets: ${edit.sheets.map((s) => `"${s.name}"`).join(', ')}.`,
        );
      const from = ref.name;
      if (from.toLowerCase() !== op.new_name.toLowerCase()) checkSheetName(edit, op.new_name);
      ref.name = op.new_name;
      if (ref.edit) ref.edit.name = op.new_name;
      edit.renames.push({ from, to: op.new_name });
      renameNeighbours(edit.deletions, from, op.new_name);
      for (const other of edit.sheets) rewriteLoaded(edit, other.edit, from, op.new_name);
      return {
        items: [
          {
            ...item(null, { kind: 'sheet', value: from }, { kind: 'sheet', value: op.new_name }),
            sheet: from,
          },
        ],
        inverse: [{ op: 'rename_sheet', sheet: op.new_name, new_name: from }],
      };
    }
    case 'delete_sheet': {
      const ref = edit.find(op.sheet);
      if (!ref)
        throw new PatchOpError(
          `Sheet "${op.sheet}" does not exist. Sheets: ${edit.sheets.map((s) => `"${s.name}"`).join(', ')}.`,
        );
      const position = edit.sheets.indexOf(ref);
      const visibleLeft = edit.sheets.filter((s) => s !== ref && s.state === 'visible').length;
      if (visibleLeft === 0)
        throw new PatchOpError(
          `"${ref.name}" is the last visible sheet; a workbook needs at least one. Add another sheet first.`,
        );
      const deletion: SheetDeletion = {
        name: ref.name,
        previous: edit.sheets[position - 1]?.name,
        next: edit.sheets[position + 1]?.name,
      };
      const names = namesLostWith(edit, ref, deletion);
      edit.sheets.splice(position, 1);
      edit.removed.push(ref);
      edit.deletions.push(deletion);
      edit.formulasChanged = true;
      edit.contentChanged = true;
      const restores = edit.sheets.flatMap((other) => rewriteLoaded(edit, other.edit, ref.name, deletion));
      const elsewhere: PatchOp[] = [...names]
        .filter(([sheet]) => sheet !== ref)
        .map(([sheet, list]) => ({
          op: 'restore_design_snapshot',
          sheet: sheet.name,
          design_snapshot: { defined_names: list },
        }));
      const own = deletedSheetInverse(edit, ref, position, names.get(ref) ?? [], undoWarnings);
      const inverse = [...own, ...elsewhere, ...restores];
      return {
        items: [{ ...item(null, { kind: 'sheet', value: ref.name }, null), sheet: ref.name }],
        inverse,
      };
    }
    case 'set_bold':
    case 'set_font_size':
    case 'set_font_color':
    case 'set_fill_color':
    case 'set_alignment':
    case 'set_style': {
      const { edit: sheet, name } = sheetOf(edit, op.sheet);
      const where = (op.cell ?? op.range)!;
      const change = styleChange(op);
      const inverse = restyle(edit, sheet, name, parseRange(where), change);
      return {
        items: [{ ...item(where, null, { kind: 'style', value: describeChange(change) }), sheet: name }],
        inverse,
      };
    }
    case 'draw_grid_border': {
      const { edit: sheet, name } = sheetOf(edit, op.sheet);
      const where = gridRange(op)!;
      const inverse = restyle(edit, sheet, name, parseRange(where), { gridBorder: true });
      return {
        items: [{ ...item(where, null, { kind: 'style', value: 'grid_border(thin,black)' }), sheet: name }],
        inverse,
      };
    }
    case 'set_dimensions': {
      const { edit: sheet, name } = sheetOf(edit, op.sheet);
      const rowHeights: { row: number; height: number | null }[] = [];
      const colWidths: { column: string; width: number | null }[] = [];
      for (const r of new Set(op.rows ?? [])) {
        rowHeights.push({ row: r, height: rowHeight(sheet, r) });
        setRowHeight(sheet, r, op.row_height!);
      }
      for (const c of new Set((op.columns ?? []).map(columnIndex))) {
        colWidths.push({ column: colIndexToAlpha(c), width: columnWidth(sheet, c) });
        setColumnWidth(sheet, c, op.column_width!);
      }
      const parts = [
        op.rows ? `rows ${op.rows.join(',')} height=${op.row_height}` : '',
        op.columns ? `columns ${colWidths.map((c) => c.column).join(',')} width=${op.column_width}` : '',
      ].filter(Boolean);
      return {
        items: [{ ...item(null, null, { kind: 'dimension', value: parts.join('; ') }), sheet: name }],
        inverse: [
          {
            op: 'restore_design_snapshot',
            sheet: name,
            design_snapshot: { row_heights: rowHeights, column_widths: colWidths },
          },
        ],
      };
    }
    case 'merge_cells': {
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
      for (let r = range.start.row; r <= range.end.row; r++) {
        for (let c = range.start.col; c <= range.end.col; c++) {
          if (r === range.start.row && c === range.start.col) continue;
          const before = valueOf(sheet, r, c);
          if (before === null) continue;
          cleared.push(addressOf(r, c));
          inverse.push(restoreCell(edit, sheet, name, r, c));
          clearContent(edit, sheet, r, c);
        }
      }
      if (cleared.length)
        warnings.push(
          `merge_cells ${name}!${op.range} cleared the values of ${cleared.join(', ')} (only the top-left value is kept, as in Excel).`,
        );
      sheet.merges = [...sheet.merges, range];
      return {
        items: [{ ...item(op.range, null, { kind: 'style', value: `merged ${op.range}` }), sheet: name }],
        inverse,
      };
    }
    case 'unmerge_cells': {
      const { edit: sheet, name } = sheetOf(edit, op.sheet);
      const range = parseRange(op.range);
      const removed = sheet.merges.filter((m) => rangesOverlap(m, range));
      if (removed.length === 0)
        warnings.push(`unmerge_cells ${name}!${op.range}: no merged range intersects it.`);
      sheet.merges = sheet.merges.filter((m) => !rangesOverlap(m, range));
      return {
        items: [
          { ...item(op.range, null, { kind: 'style', value: `unmerged ${removed.length}` }), sheet: name },
        ],
        inverse: [
          {
            op: 'restore_design_snapshot',
            sheet: name,
            design_snapshot: { merged_ranges: { scope: op.range, ranges: removed.map(formatRange) } },
          },
        ],
      };
    }
    case 'restore_design_snapshot': {
      const { edit: sheet, name } = sheetOf(edit, op.sheet);
      const snap = op.design_snapshot;
      const inverseSnap: OpOf<'restore_design_snapshot'>['design_snapshot'] = {};
      if (snap.cell_styles) {
        inverseSnap.cell_styles = [];
        for (const { cell, style_id } of snap.cell_styles) {
          if (style_id >= edit.styles.xfCount)
            throw new PatchOpError(
              `style_id ${style_id} does not exist (the workbook has ${edit.styles.xfCount} cell formats).`,
              cell,
            );
          const at = parseA1(cell);
          inverseSnap.cell_styles.push({ cell, style_id: sheet.effectiveStyle(at.row, at.col) });
          setStyle(sheet, at.row, at.col, style_id);
        }
      }
      if (snap.merged_ranges) {
        const scope = parseRange(snap.merged_ranges.scope);
        const current = sheet.merges.filter((m) => rangesOverlap(m, scope));
        inverseSnap.merged_ranges = { scope: snap.merged_ranges.scope, ranges: current.map(formatRange) };
        sheet.merges = [
          ...sheet.merges.filter((m) => !rangesOverlap(m, scope)),
          ...snap.merged_ranges.ranges.map((r) => parseRange(r)),
        ];
      }
      if (snap.row_heights) {
        inverseSnap.row_heights = snap.row_heights.map(({ row }) => ({ row, height: rowHeight(sheet, row) }));
        for (const { row, height } of snap.row_heights) setRowHeight(sheet, row, height);
      }
      if (snap.column_widths) {
        inverseSnap.column_widths = snap.column_widths.map(({ column }) => ({
          column,
          width: columnWidth(sheet, columnIndex(column)),
        }));
        for (const { column, width } of snap.column_widths) setColumnWidth(sheet, columnIndex(column), width);
      }
      if (snap.defined_names) {
        const ref = edit.require(op.sheet);
        const now = currentNames(edit);
        inverseSnap.defined_names = snap.defined_names.map(({ name: key, scope }) => {
          const had = now.find(
            (n) =>
              n.scope === (scope === 'sheet' ? ref : undefined) && n.name.toLowerCase() === key.toLowerCase(),
          );
          return { name: key, scope, value: had?.value ?? null, ...(had ? { hidden: had.hidden } : {}) };
        });
        for (const d of snap.defined_names) {
          setName(edit, {
            name: d.name,
            scope: d.scope === 'sheet' ? ref : undefined,
            value: d.value,
            hidden: d.hidden,
          });
          if (d.value !== null) edit.definedNames.add(d.name.toUpperCase());
        }
        edit.contentChanged = true;
      }
      if (snap.rule_formulas) {
        const edits = snap.rule_formulas;
        const previous = sheet.tailRewrite;
        const current = ruleFormulas(previous ? previous(sheet.tail) : sheet.tail);
        const missing = edits.find((e) => e.index >= current.length);
        if (missing)
          throw new PatchOpError(
            `"${name}" has ${current.length} formulas in conditional formats and data validations; there is no #${missing.index} (counted from 0).`,
          );
        inverseSnap.rule_formulas = edits.map(({ index }) => ({ index, formula: current[index]! }));
        // Applied when the sheet's tail streams through the writer.
        sheet.tailRewrite = (tail) => setRuleFormulas(previous ? previous(tail) : tail, edits);
        edit.contentChanged = true;
      }
      return {
        items: [{ ...item(null, null, { kind: 'style', value: 'design snapshot restored' }), sheet: name }],
        inverse: [{ op: 'restore_design_snapshot', sheet: name, design_snapshot: inverseSnap }],
      };
    }
  }
}

function sheetOf(edit: WorkbookEdit, name: string): { edit: SheetEdit; name: string } {
  const ref = edit.require(name);
  return { edit: ref.edit, name: ref.name };
}

const SHEET_NAME_FORBIDDEN = /[:\\/?*[\]]/;

function checkSheetName(edit: WorkbookEdit, name: string): void {
  if (name.length > 31)
    throw new PatchOpError(`Sheet name "${name}" is longer than 31 characters (Excel's limit).`);
  if (SHEET_NAME_FORBIDDEN.test(name))
    throw new PatchOpError(`Sheet name "${name}" contains one of : \\ / ? * [ ] which Excel does not allow.`);
  if (name.startsWith("'") || name.endsWith("'"))
    throw new PatchOpError(`Sheet name "${name}" may not start or end with an apostrophe.`);
  // The name is written into formulas and XML attributes, which cannot carry control characters.
  // eslint-disable-next-line no-control-regex
  const control = /[\u0000-\u001F\u007F\uFFFE\uFFFF]/.exec(name);
  if (control)
    throw new PatchOpError(
      `Sheet name ${JSON.stringify(name)} contains the control character U+${control[0].charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}; Excel sheet names cannot hold one.`,
    );
  if (name.toLowerCase() === 'history')
    throw new PatchOpError('"History" is reserved by Excel; choose another sheet name.');
  if (edit.find(name))
    throw new PatchOpError(
      `A sheet named "${edit.find(name)!.name}" already exists (names are case-insensitive). Choose another name.`,
    );
}

function guardWritable(sheet: SheetEdit, row: number, col: number): void {
  const address = addressOf(row, col);
  const merged = sheet.merges.find(
    (m) => rangeContains(m, row, col) && !(m.start.row === row && m.start.col === col),
  );
  if (merged) {
    throw new PatchOpError(
      `${address} is inside the merged range ${formatRange(merged)}; only its top-left cell ${addressOf(merged.start.row, merged.start.col)} holds a value. Write there, or unmerge first.`,
      address,
    );
  }
  const header = sheet.tableHeaders.find((t) => rangeContains(t.range, row, col));
  if (header) {
    throw new PatchOpError(
      `${address} is a header cell of the table "${header.name}"; its text is also the table's column name, which this tool does not rename. Rename the column in Excel, or write below the header.`,
      address,
    );
  }
  const array = sheet.arrayAt(row, col);
  if (array) {
    throw new PatchOpError(
      `${address} is part of the array formula ${formatRange(array)}, which can only change as a whole. Clear or rewrite the whole array in Excel.`,
      address,
    );
  }
}

function writeValue(
  edit: WorkbookEdit,
  sheet: SheetEdit,
  row: number,
  col: number,
  value: Scalar | null,
  autoFormula: boolean,
  opName: string,
  type?: 'text' | 'error' | 'date',
): PatchValue | null {
  if (type === undefined && typeof value === 'string' && value.startsWith('=')) {
    if (!autoFormula) {
      throw new PatchOpError(
        `${opName} got "${value.slice(0, 40)}", which starts with "=". Use set_formula for formulas, or pass auto_formula=true to write such values as formulas.`,
        addressOf(row, col),
      );
    }
    return writeFormula(edit, sheet, row, col, value);
  }
  if (typeof value === 'string' && value.length > 32767) {
    throw new PatchOpError(
      `The text for ${addressOf(row, col)} is ${value.length} characters; Excel cells hold at most 32767.`,
      addressOf(row, col),
    );
  }
  guardWritable(sheet, row, col);
  const had = sheet.peek(row, col);
  if (had?.formula !== undefined) edit.formulasChanged = true;
  sheet.detachShared(row, col);
  const cell = sheet.cell(row, col);
  resetContent(cell);
  const stored = type ? value : asCellDate(edit, sheet, row, col, value);
  cell.value = stored;
  if (type === 'error' || type === 'date') {
    // An error value is a t="e" cell, an ISO date a t="d" cell; their inner XML is written as is.
    cell.attrs.set('t', type === 'error' ? 'e' : 'd');
    cell.rawInner = `<${sheet.prefix}v>${escapeXml(String(value))}</${sheet.prefix}v>`;
    for (const key of ['cm', 'vm']) cell.attrs.delete(key);
  }
  edit.contentChanged = true;
  return stored === null ? null : { kind: 'value', value: stored };
}

function valueType(op: OpOf<'set_value' | 'set_value_if'>): 'text' | 'error' | 'date' | undefined {
  return op.op === 'set_value' ? op.value_type : undefined;
}

function writeFormula(
  edit: WorkbookEdit,
  sheet: SheetEdit,
  row: number,
  col: number,
  formula: string,
  array?: CellRange,
): PatchValue {
  if (array) guardArray(sheet, row, col, array);
  else guardWritable(sheet, row, col);
  sheet.detachShared(row, col);
  const cell = sheet.cell(row, col);
  resetContent(cell);
  cell.formula = prepareFormula(formula.slice(1));
  if (array) {
    // The other cells keep their values: the array's cached results until Excel recalculates.
    cell.formulaAttrs = new Map([
      ['t', 'array'],
      ['ref', formatRange(array)],
    ]);
    if (!sheet.arrays.some((a) => formatRange(a) === formatRange(array))) sheet.arrays.push(array);
  }
  edit.formulasChanged = true;
  edit.contentChanged = true;
  return { kind: 'formula', value: formula };
}

/** An array formula may replace one over the same range; it may not overlap anything else. */
function guardArray(sheet: SheetEdit, row: number, col: number, range: CellRange): void {
  const where = formatRange(range);
  const address = addressOf(row, col);
  const merged = sheet.merges.find((m) => rangesOverlap(m, range));
  if (merged)
    throw new PatchOpError(
      `The array formula range ${where} overlaps the merged range ${formatRange(merged)}; Excel allows no array formulas in merged cells.`,
      address,
    );
  const header = sheet.tableHeaders.find((t) => rangesOverlap(t.range, range));
  if (header) throw new PatchOpError(`${where} overlaps the header of the table "${header.name}".`, address);
  const other = sheet.arrays.find((a) => rangesOverlap(a, range) && formatRange(a) !== where);
  if (other)
    throw new PatchOpError(
      `${where} overlaps the array formula ${formatRange(other)}, which can only change as a whole.`,
      address,
    );
  for (let r = range.start.row; r <= range.end.row; r++) {
    for (const c of sheet.rows.get(r)?.cells.keys() ?? []) {
      if ((r === row && c === col) || c < range.start.col || c > range.end.col) continue;
      if (sheet.formulaOf(r, c) !== undefined)
        throw new PatchOpError(
          `${addressOf(r, c)} holds a formula; the other cells of an array formula (${where}) must not. Clear it first.`,
          addressOf(r, c),
        );
    }
  }
}

function rangeInside(inner: CellRange, outer: CellRange): boolean {
  return (
    rangeContains(outer, inner.start.row, inner.start.col) &&
    rangeContains(outer, inner.end.row, inner.end.col)
  );
}

function clearContent(edit: WorkbookEdit, sheet: SheetEdit, row: number, col: number): void {
  const had = sheet.peek(row, col);
  if (had?.formula !== undefined) edit.formulasChanged = true;
  sheet.detachShared(row, col);
  const cell = sheet.cell(row, col);
  resetContent(cell);
  edit.contentChanged = true;
}

function resetContent(cell: CellState): void {
  cell.raw = undefined;
  cell.rawInner = undefined;
  cell.formula = undefined;
  cell.formulaAttrs = undefined;
  cell.value = null;
  cell.attrs.delete('t');
}

function setStyle(sheet: SheetEdit, row: number, col: number, style: number): void {
  const cell = sheet.cell(row, col);
  if (cell.raw !== undefined && cell.rawInner === undefined) cell.rawInner = ''; // an empty <c/>
  cell.raw = undefined;
  if (style === 0) cell.attrs.delete('s');
  else cell.attrs.set('s', String(style));
}

function restyle(
  edit: WorkbookEdit,
  sheet: SheetEdit,
  name: string,
  range: CellRange,
  change: StyleChange,
): PatchOp[] {
  const before: { cell: string; style_id: number }[] = [];
  for (let r = range.start.row; r <= range.end.row; r++) {
    for (let c = range.start.col; c <= range.end.col; c++) {
      const current = sheet.effectiveStyle(r, c);
      before.push({ cell: addressOf(r, c), style_id: current });
      setStyle(sheet, r, c, edit.styles.derive(current, change));
    }
  }
  return [{ op: 'restore_design_snapshot', sheet: name, design_snapshot: { cell_styles: before } }];
}

function styleChange(
  op: OpOf<
    'set_bold' | 'set_font_size' | 'set_font_color' | 'set_fill_color' | 'set_alignment' | 'set_style'
  >,
): StyleChange {
  const change: StyleChange = {};
  const o = op as Record<string, unknown>;
  if (typeof o.bold === 'boolean') change.bold = o.bold;
  if (typeof o.font_size === 'number') change.fontSize = o.font_size;
  if (typeof o.color === 'string') change.fontColor = o.color;
  if (typeof o.fill_color === 'string') change.fillColor = o.fill_color;
  if (typeof o.horizontal_align === 'string')
    change.horizontal = o.horizontal_align as StyleChange['horizontal'];
  if (typeof o.vertical_align === 'string') change.vertical = o.vertical_align as StyleChange['vertical'];
  if (typeof o.wrap_text === 'boolean') change.wrapText = o.wrap_text;
  return change;
}

function describeChange(change: StyleChange): string {
  const parts: string[] = [];
  if (change.bold !== undefined) parts.push(`bold=${change.bold}`);
  if (change.fontSize !== undefined) parts.push(`font_size=${change.fontSize}`);
  if (change.fontColor !== undefined) parts.push(`color=#${change.fontColor}`);
  if (change.fillColor !== undefined) parts.push(`fill=#${change.fillColor}`);
  if (change.horizontal !== undefined) parts.push(`horizontal=${change.horizontal}`);
  if (change.vertical !== undefined) parts.push(`vertical=${change.vertical}`);
  if (change.wrapText !== undefined) parts.push(`wrap_text=${change.wrapText}`);
  return parts.join(', ');
}

function columnIndex(column: string | number): number {
  return typeof column === 'number' ? column - 1 : alphaToColIndex(column);
}

function rowHeight(sheet: SheetEdit, row: number): number | null {
  const attrs = sheet.rows.get(row)?.attrs;
  return attrs?.has('ht') ? Number(attrs.get('ht')) : null;
}

function setRowHeight(sheet: SheetEdit, row: number, height: number | null): void {
  const state = sheet.row(row);
  state.raw = undefined;
  if (height === null) {
    state.attrs.delete('ht');
    state.attrs.delete('customHeight');
  } else {
    state.attrs.set('ht', String(height));
    state.attrs.set('customHeight', '1');
  }
}

function columnWidth(sheet: SheetEdit, col: number): number | null {
  const span = sheet.cols.find((s) => col + 1 >= s.min && col + 1 <= s.max);
  return span?.attrs.has('width') ? Number(span.attrs.get('width')) : null;
}

function setColumnWidth(sheet: SheetEdit, col: number, width: number | null): void {
  sheet.cols = setColumnAttrs(sheet.cols, col + 1, (attrs) => {
    if (width === null) {
      attrs.delete('width');
      attrs.delete('customWidth');
    } else {
      attrs.set('width', String(width));
      attrs.set('customWidth', '1');
    }
  });
}

/** Compare-and-set equality after normalisation (spec 12.5). */
export function matches(current: PatchValue | null, expected: Scalar | null): boolean {
  const want = normalize(expected);
  if (current?.kind === 'formula') {
    return (
      typeof expected === 'string' &&
      expected.trim().startsWith('=') &&
      formulaKey(expected) === formulaKey(String(current.value))
    );
  }
  const have = normalize(current?.value ?? null);
  if (have === null || want === null) return have === want;
  if (typeof have === 'number' || typeof want === 'number')
    return Number(have) === Number(want) && String(have).trim() !== '' && String(want).trim() !== '';
  return have === want;
}

function normalize(value: Scalar | null): Scalar | null {
  if (value === null) return null;
  if (typeof value === 'string') {
    const trimmed = value.normalize('NFC').trim();
    if (trimmed === '') return null;
    const n = Number(trimmed);
    return Number.isFinite(n) && /^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i.test(trimmed) ? n : trimmed;
  }
  return value;
}

function formulaKey(formula: string): string {
  return formula
    .trim()
    .replace(/^=/, '')
    .replace(/("(?:[^"]|"")*")|\s+|_xl(?:fn|ws|pm)\./gi, (_m, str: string | undefined) => str ?? '') // stored prefixes
    .toUpperCase();
}

function show(value: PatchValue | Scalar | null): string {
  if (value === null) return 'nothing';
  if (typeof value === 'object') return JSON.stringify(value.value);
  return JSON.stringify(value);
}

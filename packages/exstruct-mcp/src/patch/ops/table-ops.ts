// apply_table_style: an Excel table (a table part) over a range, its header row the range's first row,
// with a built-in table style. Refused over merged cells, over another table, or with headers that are
// not distinct texts (Excel requires each column's header text to be its unique name).
import { colIndexToAlpha, parseRange, formatRange } from '../../ooxml/cell-ref.js';
import { objectState, sheetObjects } from '../parts/object-parts.js';
import { PatchOpError } from '../types.js';
import { escapeXml } from '../xml.js';
import { diffItem, sheetOf, type OpHandler } from './op-handler.js';

const MAIN = 'http://schemas.openxmlformats.org/spreadsheetml/2006/main';

export const applyTableStyle: OpHandler<'apply_table_style'> = (op, ctx) => {
  const { edit: sheet, name: sheetName } = sheetOf(ctx.edit, op.sheet);
  const ref = ctx.edit.find(sheetName)!;
  const range = parseRange(op.range);
  const overlaps = (r: { start: { row: number; col: number }; end: { row: number; col: number } }) =>
    r.start.row <= range.end.row &&
    r.end.row >= range.start.row &&
    r.start.col <= range.end.col &&
    r.end.col >= range.start.col;
  const merged = sheet.merges.find(overlaps);
  if (merged)
    throw new PatchOpError(
      `${op.range} overlaps the merged range ${formatRange(merged)}; a table cannot hold merged cells. Unmerge it first.`,
    );
  const table = sheet.tables.find((t) => overlaps(t.range));
  if (table)
    throw new PatchOpError(`${op.range} overlaps the table "${table.name}" (${formatRange(table.range)}).`);
  const state = objectState(ctx.edit);
  const objects = sheetObjects(ctx.edit, ref);
  const headers: string[] = [];
  for (let c = range.start.col; c <= range.end.col; c++) {
    const value = sheet.peek(range.start.row, c)?.value;
    const text =
      typeof value === 'string' ? value.trim() : value === null || value === undefined ? '' : String(value);
    if (text === '')
      throw new PatchOpError(
        `The header cell ${colIndexToAlpha(c)}${range.start.row} is empty; a table's first row names its columns. Write the headers first (set_range_values).`,
      );
    if (typeof value !== 'string')
      throw new PatchOpError(
        `The header cell ${colIndexToAlpha(c)}${range.start.row} holds ${String(value)}, not text; write the header as text first.`,
      );
    if (headers.some((h) => h.toLowerCase() === text.toLowerCase()))
      throw new PatchOpError(
        `Two columns of ${op.range} are headed "${text}"; table headers must be distinct.`,
      );
    headers.push(value);
  }
  // Excel keeps tables and defined names in one namespace: a table named like a defined name is
  // dropped when the workbook is opened ("We found a problem with some content").
  const isDefinedName = (n: string) => ctx.edit.definedNames.has(n.toUpperCase());
  let name = op.table_name;
  if (name && state.tableNames.has(name.toUpperCase()))
    throw new PatchOpError(`The workbook already has a table named "${name}"; choose another table_name.`);
  if (name && isDefinedName(name))
    throw new PatchOpError(
      `The workbook has a defined name "${name}", and a table's name must differ from every defined name; choose another table_name.`,
    );
  if (!name)
    for (let n = 1; state.tableNames.has((name = `Table${n}`).toUpperCase()) || isDefinedName(name); n++);
  state.tableNames.add(name.toUpperCase());
  sheet.tables.push({ name: name, range });
  sheet.tableHeaders.push({
    name: name,
    range: { start: range.start, end: { row: range.start.row, col: range.end.col } },
  });
  const ref1 = formatRange(range);
  const tableName = name;
  objects.tables.push({
    name: tableName,
    xml: (id) =>
      '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n' +
      `<table xmlns="${MAIN}" id="${id}" name="${escapeXml(tableName)}" displayName="${escapeXml(tableName)}" ref="${ref1}" totalsRowShown="0">` +
      `<autoFilter ref="${ref1}"/><tableColumns count="${headers.length}">` +
      headers.map((h, i) => `<tableColumn id="${i + 1}" name="${escapeXml(h)}"/>`).join('') +
      `</tableColumns><tableStyleInfo name="${escapeXml(op.style)}" showFirstColumn="0" showLastColumn="0" showRowStripes="1" showColumnStripes="0"/></table>`,
  });
  return {
    items: [
      diffItem(ctx, op, sheetName, ref1, null, {
        kind: 'style',
        value: `table=${tableName};table_style=${op.style}`,
      }),
    ],
    inverse: [{ op: 'delete_table', sheet: sheetName, table_name: tableName }],
  };
};

/** Removes a table (its part; the cells keep their values and formats). The inverse of apply_table_style. */
export const deleteTable: OpHandler<'delete_table'> = (op, ctx) => {
  const { edit: sheet, name: sheetName } = sheetOf(ctx.edit, op.sheet);
  const ref = ctx.edit.find(sheetName)!;
  const objects = sheetObjects(ctx.edit, ref);
  const wanted = op.table_name.toUpperCase();
  const index = sheet.tables.findIndex((t) => t.name.toUpperCase() === wanted);
  if (index < 0) {
    // Nothing to delete (as when undoing a table that a later op of that patch deleted): skipped.
    ctx.warnings.push(
      `Sheet "${sheetName}" has no table named "${op.table_name}"; delete_table was skipped.`,
    );
    return { items: [diffItem(ctx, op, sheetName, null, null, null, 'skipped')], inverse: [] };
  }
  const table = sheet.tables.splice(index, 1)[0]!;
  const header = sheet.tableHeaders.findIndex((t) => t.name.toUpperCase() === wanted);
  if (header >= 0) sheet.tableHeaders.splice(header, 1);
  objectState(ctx.edit).tableNames.delete(wanted);
  const added = objects.tables.findIndex((t) => t.name.toUpperCase() === wanted);
  if (added >= 0) objects.tables.splice(added, 1);
  else objects.deleteTables.push(table.name);
  ctx.undoWarnings.push(
    `delete_table "${table.name}" is not undone by inverse ops; apply_table_style makes a table again.`,
  );
  return {
    items: [
      diffItem(
        ctx,
        op,
        sheetName,
        formatRange(table.range),
        { kind: 'style', value: `table=${table.name}` },
        null,
      ),
    ],
    inverse: [],
  };
};

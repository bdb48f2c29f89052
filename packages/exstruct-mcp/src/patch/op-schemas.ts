import { z } from 'zod';
import { tryParseA1 } from '../ooxml/cell-ref.js';
import { CHART_TYPES } from './ops/chart-ops.js';
import { formulaTooLong, MAX_FORMULA_LENGTH } from './formula.js';
import { isoDateProblem } from './iso-date-check.js';

/** Most cells one formatting op may touch (as in the original ExStruct). */
export const MAX_STYLE_CELLS = 10_000;
/** Most cells one set_range_values / fill_formula may write. */
export const MAX_WRITE_CELLS = 100_000;
/**
 * Most cells one merged range may cover: a whole column (or 64 whole rows). Readers such as openpyxl
 * (so pandas) make an object for every address of a merged range when they open the file, so a merge
 * of the whole sheet (17 billion addresses) would make the workbook unreadable to them.
 */
export const MAX_MERGE_CELLS = 1_048_576;

const A1 = /^\$?[A-Za-z]{1,3}\$?[1-9][0-9]*$/;
/** A defined name (built-in ones such as `_xlnm.Print_Area` included). */
const DEFINED_NAME = /^[A-Za-z_\\\u00C0-\uFFFF][\w.\\\u00C0-\uFFFF]*$/;

export const ScalarSchema = z
  .union([z.string(), z.number(), z.boolean(), z.null()])
  .describe('A cell value: text, number, boolean, or null (empty).');

const sheet = z
  .string()
  .trim()
  .min(1, 'sheet must not be empty')
  .describe('Worksheet name (exact, case-insensitive match).');
const cell = z
  .string()
  .trim()
  .refine((v) => A1.test(v) && tryParseA1(v) !== undefined, {
    message: 'must be an A1 cell address such as "B3"',
  })
  .transform((v) => v.replace(/\$/g, '').toUpperCase())
  .describe('Cell in A1 notation, e.g. "B3".');
const range = z
  .string()
  .trim()
  .refine(
    (v) => {
      const parts = v.split(':');
      return parts.length <= 2 && parts.every((p) => A1.test(p) && tryParseA1(p) !== undefined);
    },
    {
      message:
        'must be an A1 range such as "B2:D4" (whole columns or rows are written with both corners: "A1:C1048576", "A1:XFD5")',
    },
  )
  .transform((v) => v.replace(/\$/g, '').toUpperCase())
  .describe('Rectangular range in A1 notation, e.g. "B2:D4".');
const formula = z
  .string()
  .refine((v) => v.startsWith('='), { message: 'must start with "=", e.g. "=SUM(A1:A3)"' })
  // Checked before any op runs: a longer formula would not open in Excel (and costs time to check).
  .refine((v) => v.length <= MAX_FORMULA_LENGTH + 1, {
    error: (issue) => formulaTooLong((issue.input as string).length - 1),
  })
  .describe('Formula starting with "=", English function names, "," between arguments.');
const color = (what: string) =>
  z
    .string()
    .trim()
    .refine((v) => /^#?(?:[0-9A-Fa-f]{6}|[0-9A-Fa-f]{8})$/.test(v), {
      message: 'must be a hex colour "#RRGGBB" or "#AARRGGBB"',
    })
    .transform((v) => {
      const hex = v.replace('#', '').toUpperCase();
      return hex.length === 6 ? `FF${hex}` : hex;
    })
    .describe(`${what} as "#RRGGBB" or "#AARRGGBB".`);
const horizontal = z
  .enum(['general', 'left', 'center', 'right', 'fill', 'justify', 'centerContinuous', 'distributed'])
  .describe('Horizontal alignment.');
const vertical = z
  .enum(['top', 'center', 'bottom', 'justify', 'distributed'])
  .describe('Vertical alignment.');

/** The error values a cell can hold (`t="e"`). */

export const ERROR_VALUES = [
  '#NULL!',
  '#DIV/0!',
  '#VALUE!',
  '#REF!',
  '#NAME?',
  '#NUM!',
  '#N/A',
  '#GETTING_DATA',
  '#SPILL!',
  '#CALC!',
  '#FIELD!',
  '#BLOCKED!',
  '#CONNECT!',
  '#BUSY!',
  '#UNKNOWN!',
];

const target = {
  cell: cell.optional().describe('One cell, e.g. "A1" (give cell or range, not both).'),
  range: range.optional().describe('A range, e.g. "A1:D1" (give cell or range, not both).'),
};

function oneTarget(v: { cell?: string | undefined; range?: string | undefined }, ctx: z.RefinementCtx): void {
  if ((v.cell === undefined) === (v.range === undefined)) {
    ctx.addIssue({ code: 'custom', message: 'give exactly one of "cell" or "range"', path: ['cell'] });
  }
}

/** Rows and columns of an A1 range; 0 × 0 for text that is not one (its own issue says why). */
function cellCount(r: string): { rows: number; cols: number } {
  const [a, b = a] = r.split(':');
  const s = tryParseA1(a!);
  const e = tryParseA1(b!);
  // Object refinements run even when the range itself was refused (A:XFD, 1:1048576).
  if (!s || !e) return { rows: 0, cols: 0 };
  return { rows: Math.abs(e.row - s.row) + 1, cols: Math.abs(e.col - s.col) + 1 };
}

/** Whether a cell lies in a range (both already checked as A1). */
function cellInRange(address: string, r: string): boolean {
  const [a, b = a] = r.split(':');
  const c = tryParseA1(address);
  const s = tryParseA1(a!);
  const e = tryParseA1(b!);
  if (!c || !s || !e) return true; // refused elsewhere
  const within = (v: number, x: number, y: number) => v >= Math.min(x, y) && v <= Math.max(x, y);
  return within(c.row, s.row, e.row) && within(c.col, s.col, e.col);
}

function styleLimit(v: { range?: string | undefined }, ctx: z.RefinementCtx): void {
  if (v.range) {
    const { rows, cols } = cellCount(v.range);
    if (rows * cols > MAX_STYLE_CELLS) {
      ctx.addIssue({
        code: 'custom',
        message: `range covers ${rows * cols} cells; formatting ops are limited to ${MAX_STYLE_CELLS}`,
        path: ['range'],
      });
    }
  }
}

/** A range that may name its sheet: `B2:D9` or `'Sales 2024'!B2:D9`. */
const qualifiedRange = z
  .string()
  .trim()
  .refine(
    (v) => {
      const bang = v.lastIndexOf('!');
      const parts = v.slice(bang + 1).split(':');
      return parts.length === 2 && parts.every((p) => A1.test(p) && tryParseA1(p) !== undefined);
    },
    { message: 'must be an A1 range such as "B2:D9" or "\'Sheet 1\'!B2:D9"' },
  )
  .transform((v) => {
    const bang = v.lastIndexOf('!');
    return (
      v.slice(0, bang + 1) +
      v
        .slice(bang + 1)
        .replace(/\$/g, '')
        .toUpperCase()
    );
  });
const CHART_ALIASES: Record<string, string> = {
  column_clustered: 'column',
  bar_clustered: 'bar',
  xy_scatter: 'scatter',
  donut: 'doughnut',
};
const columnList = z
  .array(
    z.union([
      z.string().regex(/^[A-Za-z]{1,3}$/, 'column letters such as "B"'),
      z.number().int().min(1).max(16384),
    ]),
  )
  .min(1);
const tableStyle = z
  .string()
  .trim()
  .regex(/^TableStyle(Light([1-9]|1[0-9]|2[0-1])|Medium([1-9]|1[0-9]|2[0-8])|Dark([1-9]|1[01]))$/, {
    message: 'must be a built-in table style such as "TableStyleMedium2" (Light1-21, Medium1-28, Dark1-11)',
  });
const tableName = z
  .string()
  .trim()
  .regex(
    /^[A-Za-z_\\][A-Za-z0-9_.\\]{0,254}$/,
    'letters, digits, "_" and "." only, starting with a letter or "_"',
  )
  .refine(
    // A1 (`AB12`) or R1C1 (`R`, `C`, `RC`, `R2`, `R1C1`): Excel refuses such names.
    (v) => !/^[A-Za-z]{1,3}\d+$/.test(v) && !/^(?:R\d*|C\d*|R\d*C\d*)$/i.test(v),
    'must not look like a cell reference',
  );

export const OP_SCHEMAS = {
  set_value: z
    .object({
      op: z.literal('set_value'),
      sheet,
      cell,
      value: ScalarSchema.describe(
        'The value; null clears the cell. Text starting with "=" needs auto_formula=true.',
      ),
      value_type: z
        .enum(['text', 'error', 'date'])
        .optional()
        .describe(
          '"text": write the value as text even if it starts with "="; "error": an error value such as "#N/A"; ' +
            '"date": an ISO 8601 date cell (t="d", as LibreOffice and some writers store dates; undo uses it).',
        ),
    })
    .strict()
    .superRefine((v, ctx) => {
      if (v.value_type === 'error' && !ERROR_VALUES.includes(String(v.value)))
        ctx.addIssue({
          code: 'custom',
          path: ['value'],
          message: `must be one of ${ERROR_VALUES.join(' ')}`,
        });
      if (v.value_type === 'text' && typeof v.value !== 'string')
        ctx.addIssue({ code: 'custom', path: ['value'], message: 'value_type "text" needs a text value' });
      if (v.value_type === 'date') {
        const problem =
          typeof v.value === 'string' ? isoDateProblem(v.value) : 'needs ISO 8601 text such as "2025-01-31"';
        if (problem)
          ctx.addIssue({ code: 'custom', path: ['value'], message: `value_type "date": ${problem}` });
      }
    })
    .describe('Write one value into one cell (replaces a formula there).'),
  set_formula: z
    .object({
      op: z.literal('set_formula'),
      sheet,
      cell,
      formula,
      array_range: range
        .optional()
        .describe(
          'Write an array formula (Ctrl+Shift+Enter) over this range; cell must be its top-left cell.',
        ),
    })
    .strict()
    .superRefine((v, ctx) => {
      if (v.array_range === undefined) return;
      const [first = ''] = v.array_range.split(':');
      if (first !== v.cell)
        ctx.addIssue({ code: 'custom', path: ['array_range'], message: `must start at cell ${v.cell}` });
      const { rows, cols } = cellCount(v.array_range);
      if (rows * cols > MAX_WRITE_CELLS)
        ctx.addIssue({ code: 'custom', path: ['array_range'], message: `at most ${MAX_WRITE_CELLS} cells` });
    })
    .describe('Write one formula into one cell; Excel recalculates it when the file is opened.'),
  add_sheet: z
    .object({
      op: z.literal('add_sheet'),
      sheet: sheet.describe('Name of the new sheet (unique, at most 31 characters, none of : \\ / ? * [ ]).'),
      position: z
        .number()
        .int()
        .min(0)
        .optional()
        .describe('0-based position among the sheets (default: last).'),
      state: z
        .enum(['visible', 'hidden', 'veryHidden'])
        .optional()
        .describe('Tab visibility (default visible); veryHidden sheets can only be shown again by VBA.'),
    })
    .strict()
    .describe('Add an empty worksheet; later ops may write to it.'),
  set_range_values: z
    .object({
      op: z.literal('set_range_values'),
      sheet,
      range,
      values: z
        .array(z.array(ScalarSchema))
        .min(1)
        .describe('Rows of values; the shape must equal the range (rows × columns).'),
    })
    .strict()
    .superRefine((v, ctx) => {
      const { rows, cols } = cellCount(v.range);
      const height = v.values.length;
      const widths = new Set(v.values.map((r) => r.length));
      if (height !== rows || widths.size !== 1 || !widths.has(cols)) {
        ctx.addIssue({
          code: 'custom',
          path: ['values'],
          message: `shape ${height}×${[...widths].join('/')} does not match range ${v.range} (${rows}×${cols})`,
        });
      }
      if (rows * cols > MAX_WRITE_CELLS) {
        ctx.addIssue({ code: 'custom', path: ['range'], message: `at most ${MAX_WRITE_CELLS} cells per op` });
      }
    })
    .describe('Write a rectangle of values (a 2-D array) in one op.'),
  fill_formula: z
    .object({
      op: z.literal('fill_formula'),
      sheet,
      range: range.describe('A single row or single column range, e.g. "C2:C10".'),
      base_cell: cell.describe('The cell the formula is written for; references shift from here.'),
      formula,
    })
    .strict()
    .superRefine((v, ctx) => {
      const { rows, cols } = cellCount(v.range);
      if (rows !== 1 && cols !== 1) {
        ctx.addIssue({
          code: 'custom',
          path: ['range'],
          message: 'fill_formula needs a single row or a single column',
        });
      }
      if (rows * cols > MAX_WRITE_CELLS)
        ctx.addIssue({ code: 'custom', path: ['range'], message: `at most ${MAX_WRITE_CELLS} cells per op` });
      // Like the fill handle, the formula is written for one cell of the range and moved to the others;
      // a base outside it only shifts every reference (often off the sheet, to #REF!).
      if (rows > 0 && !cellInRange(v.base_cell, v.range))
        ctx.addIssue({
          code: 'custom',
          path: ['base_cell'],
          message: `base_cell ${v.base_cell} is not in range ${v.range}; give the cell of the range the formula is written for (usually its first)`,
        });
    })
    .describe(
      'Fill a formula along a row or column like Excel\'s fill handle: the formula is written for base_cell (a cell of range); relative references shift, "$" parts stay.',
    ),
  set_value_if: z
    .object({
      op: z.literal('set_value_if'),
      sheet,
      cell,
      expected: ScalarSchema.optional().describe(
        'The value the cell must hold now (null/omitted = empty); compared after normalisation.',
      ),
      value: ScalarSchema,
    })
    .strict()
    .describe(
      'Compare-and-set: write the value only if the cell holds `expected`; otherwise the op is skipped with a warning.',
    ),
  set_formula_if: z
    .object({
      op: z.literal('set_formula_if'),
      sheet,
      cell,
      expected: ScalarSchema.optional().describe(
        'The value (or "=formula") the cell must hold now; null/omitted = empty.',
      ),
      formula,
    })
    .strict()
    .describe(
      'Compare-and-set for formulas: write only if the cell holds `expected`; otherwise skipped with a warning.',
    ),
  set_bold: z
    .object({
      op: z.literal('set_bold'),
      sheet,
      ...target,
      bold: z.boolean().default(true).describe('true (default) or false.'),
    })
    .strict()
    .superRefine(oneTarget)
    .superRefine(styleLimit)
    .describe('Make text bold (or not) in a cell or range.'),
  set_font_size: z
    .object({
      op: z.literal('set_font_size'),
      sheet,
      ...target,
      font_size: z.number().positive().max(409).describe('Points, e.g. 14.'),
    })
    .strict()
    .superRefine(oneTarget)
    .superRefine(styleLimit)
    .describe('Set the font size of a cell or range.'),
  set_font_color: z
    .object({ op: z.literal('set_font_color'), sheet, ...target, color: color('Font colour') })
    .strict()
    .superRefine(oneTarget)
    .superRefine(styleLimit)
    .describe('Set the font colour of a cell or range.'),
  set_fill_color: z
    .object({ op: z.literal('set_fill_color'), sheet, ...target, fill_color: color('Fill colour') })
    .strict()
    .superRefine(oneTarget)
    .superRefine(styleLimit)
    .describe('Fill a cell or range with a solid colour.'),
  set_alignment: z
    .object({
      op: z.literal('set_alignment'),
      sheet,
      ...target,
      horizontal_align: horizontal.optional(),
      vertical_align: vertical.optional(),
      wrap_text: z.boolean().optional().describe('Wrap text in the cell.'),
    })
    .strict()
    .superRefine(oneTarget)
    .superRefine(styleLimit)
    .superRefine((v, ctx) => {
      if (v.horizontal_align === undefined && v.vertical_align === undefined && v.wrap_text === undefined) {
        ctx.addIssue({
          code: 'custom',
          message: 'give at least one of horizontal_align, vertical_align, wrap_text',
        });
      }
    })
    .describe('Set horizontal/vertical alignment and text wrapping of a cell or range.'),
  set_style: z
    .object({
      op: z.literal('set_style'),
      sheet,
      ...target,
      bold: z.boolean().optional(),
      font_size: z.number().positive().max(409).optional(),
      color: color('Font colour').optional(),
      fill_color: color('Fill colour').optional(),
      horizontal_align: horizontal.optional(),
      vertical_align: vertical.optional(),
      wrap_text: z.boolean().optional(),
    })
    .strict()
    .superRefine(oneTarget)
    .superRefine(styleLimit)
    .superRefine((v, ctx) => {
      const fields = [
        v.bold,
        v.font_size,
        v.color,
        v.fill_color,
        v.horizontal_align,
        v.vertical_align,
        v.wrap_text,
      ];
      if (fields.every((f) => f === undefined)) {
        ctx.addIssue({
          code: 'custom',
          message:
            'give at least one of bold, font_size, color, fill_color, horizontal_align, vertical_align, wrap_text',
        });
      }
    })
    .describe('Apply several formatting attributes to a cell or range in one op.'),
  draw_grid_border: z
    .object({
      op: z.literal('draw_grid_border'),
      sheet,
      base_cell: cell.optional().describe('Top-left cell of the grid (with row_count and col_count).'),
      row_count: z.number().int().positive().optional().describe('Rows in the grid.'),
      col_count: z.number().int().positive().optional().describe('Columns in the grid.'),
      range: range.optional().describe('The grid as a range instead of base_cell + counts.'),
    })
    .strict()
    .superRefine((v, ctx) => {
      const counts = v.base_cell !== undefined && v.row_count !== undefined && v.col_count !== undefined;
      if (counts === (v.range !== undefined)) {
        ctx.addIssue({
          code: 'custom',
          message: 'give either range, or base_cell with row_count and col_count',
        });
      }
      const cells = v.range
        ? cellCount(v.range).rows * cellCount(v.range).cols
        : (v.row_count ?? 0) * (v.col_count ?? 0);
      if (cells > MAX_STYLE_CELLS)
        ctx.addIssue({ code: 'custom', message: `at most ${MAX_STYLE_CELLS} cells per op` });
    })
    .describe('Draw thin black borders around every cell of a rectangle (a grid).'),
  set_dimensions: z
    .object({
      op: z.literal('set_dimensions'),
      sheet,
      rows: z.array(z.number().int().min(1).max(1048576)).min(1).optional().describe('1-based row numbers.'),
      row_height: z.number().positive().max(409).optional().describe('Row height in points.'),
      columns: z
        .array(
          z.union([
            z.string().regex(/^[A-Za-z]{1,3}$/, 'column letters such as "B"'),
            z.number().int().min(1).max(16384),
          ]),
        )
        .min(1)
        .optional()
        .describe('Columns as letters ("B") or 1-based numbers.'),
      column_width: z.number().positive().max(255).optional().describe('Column width in characters.'),
    })
    .strict()
    .superRefine((v, ctx) => {
      if (v.rows === undefined && v.columns === undefined)
        ctx.addIssue({ code: 'custom', message: 'give rows and/or columns' });
      if ((v.rows === undefined) !== (v.row_height === undefined))
        ctx.addIssue({ code: 'custom', message: 'rows and row_height go together' });
      if ((v.columns === undefined) !== (v.column_width === undefined))
        ctx.addIssue({ code: 'custom', message: 'columns and column_width go together' });
    })
    .describe('Set row heights and/or column widths.'),
  merge_cells: z
    .object({ op: z.literal('merge_cells'), sheet, range })
    .strict()
    .superRefine((v, ctx) => {
      const { rows, cols } = cellCount(v.range);
      if (!v.range.includes(':') || rows * cols <= 1) {
        if (rows > 0)
          ctx.addIssue({
            code: 'custom',
            path: ['range'],
            message: 'merge_cells needs a range of at least two cells',
          });
      } else if (rows * cols > MAX_MERGE_CELLS) {
        ctx.addIssue({
          code: 'custom',
          path: ['range'],
          message: `covers ${(rows * cols).toLocaleString('en')} cells; a merged range may cover at most ${MAX_MERGE_CELLS.toLocaleString('en')} (a whole column, or 64 whole rows): readers such as openpyxl and pandas make an object for every merged address`,
        });
      }
    })
    .describe('Merge a range into one cell; values other than the top-left one are cleared (as Excel does).'),
  unmerge_cells: z
    .object({ op: z.literal('unmerge_cells'), sheet, range })
    .strict()
    .describe('Unmerge every merged range that intersects the range.'),
  rename_sheet: z
    .object({
      op: z.literal('rename_sheet'),
      sheet,
      new_name: sheet.describe('The new name (unique, ≤ 31 characters, none of : \\ / ? * [ ]).'),
    })
    .strict()
    .describe('Rename a worksheet; formulas, defined names and charts that refer to it follow the new name.'),
  delete_sheet: z
    .object({ op: z.literal('delete_sheet'), sheet })
    .strict()
    .describe(
      'Delete a worksheet; references to it elsewhere become #REF! (as in Excel). At least one visible sheet must remain.',
    ),
  auto_fit_columns: z
    .object({
      op: z.literal('auto_fit_columns'),
      sheet,
      columns: columnList
        .optional()
        .describe('Columns as letters or 1-based numbers (default: every column with text).'),
      min_width: z.number().positive().max(255).optional().describe('Narrowest width, in characters.'),
      max_width: z.number().positive().max(255).optional().describe('Widest width, in characters.'),
    })
    .strict()
    .superRefine((v, ctx) => {
      if (v.min_width !== undefined && v.max_width !== undefined && v.min_width > v.max_width)
        ctx.addIssue({ code: 'custom', path: ['min_width'], message: 'min_width is larger than max_width' });
    })
    .describe(
      'Fit column widths to the widest text they show, measured with the fonts of exstruct_capture_sheet_images (Calibri metrics).',
    ),
  apply_table_style: z
    .object({
      op: z.literal('apply_table_style'),
      sheet,
      range: range.describe('The table, header row first, e.g. "A1:D20".'),
      style: tableStyle.describe(
        'A built-in style: TableStyleLight1-21, TableStyleMedium1-28, TableStyleDark1-11.',
      ),
      table_name: tableName.optional().describe('Unique in the workbook (default Table1, Table2, …).'),
    })
    .strict()
    .superRefine((v, ctx) => {
      if (cellCount(v.range).rows < 2)
        ctx.addIssue({
          code: 'custom',
          path: ['range'],
          message: 'a table needs a header row and at least one row below it',
        });
    })
    .describe('Make a range an Excel table with a built-in style; its first row holds the column headers.'),
  create_chart: z
    .object({
      op: z.literal('create_chart'),
      sheet: sheet.describe('The sheet the chart is placed on.'),
      chart_type: z.preprocess(
        (v) =>
          typeof v === 'string' ? (CHART_ALIASES[v.trim().toLowerCase()] ?? v.trim().toLowerCase()) : v,
        z.enum(CHART_TYPES),
      ),
      data_range: qualifiedRange.describe(
        'The data, e.g. "A1:C13" or "\'Data\'!A1:C13" (other sheets allowed).',
      ),
      category_range: qualifiedRange
        .optional()
        .describe('Category labels (x values for scatter); default: a first column of text.'),
      anchor_cell: cell.describe("The cell at the chart's top-left corner."),
      chart_name: z
        .string()
        .trim()
        .min(1)
        .max(255)
        .optional()
        .describe('Unique on the sheet (default "Chart N").'),
      width: z.number().positive().max(10000).default(360).describe('Points (default 360).'),
      height: z.number().positive().max(10000).default(220).describe('Points (default 220).'),
      titles_from_data: z
        .boolean()
        .default(true)
        .describe('The first row (column) of data_range names the series.'),
      series_from_rows: z
        .boolean()
        .default(false)
        .describe('Each row of data_range is a series (default: each column).'),
      title: z.string().max(255).optional().describe('Chart title.'),
      x_axis_title: z.string().max(255).optional(),
      y_axis_title: z.string().max(255).optional(),
    })
    .strict()
    .describe(
      'Add a chart (line, column, bar, area, pie, doughnut, scatter, radar) over cell ranges; Excel and LibreOffice draw it from the cells.',
    ),
  delete_chart: z
    .object({ op: z.literal('delete_chart'), sheet, chart_name: z.string().trim().min(1) })
    .strict()
    .describe('Delete a chart by its name (the inverse of create_chart).'),
  delete_table: z
    .object({ op: z.literal('delete_table'), sheet, table_name: z.string().trim().min(1) })
    .strict()
    .describe('Remove a table by its name; the cells keep their values (the inverse of apply_table_style).'),
  restore_design_snapshot: z
    .object({
      op: z.literal('restore_design_snapshot'),
      sheet,
      design_snapshot: z
        .object({
          cell_styles: z.array(z.object({ cell, style_id: z.number().int().min(0) }).strict()).optional(),
          merged_ranges: z
            .object({ scope: range, ranges: z.array(range) })
            .strict()
            .optional(),
          row_heights: z
            .array(
              z.object({ row: z.number().int().min(1), height: z.number().positive().nullable() }).strict(),
            )
            .optional(),
          column_widths: z
            .array(z.object({ column: z.string(), width: z.number().positive().nullable() }).strict())
            .optional(),
          defined_names: z
            .array(
              z
                .object({
                  name: z.string().regex(DEFINED_NAME, 'must be a defined name such as "Amounts"'),
                  scope: z.enum(['workbook', 'sheet']).describe('"sheet": local to this op\'s sheet.'),
                  value: z
                    .string()
                    .min(1)
                    .transform((v) => v.replace(/^=/, ''))
                    .nullable()
                    .describe('What the name refers to, e.g. "Data!$B$2:$B$3"; null removes the name.'),
                  hidden: z.boolean().optional(),
                })
                .strict(),
            )
            .optional(),
          rule_formulas: z
            .array(z.object({ index: z.number().int().min(0), formula: z.string() }).strict())
            .optional()
            .describe(
              'Formulas of conditional formats and data validations, by their 0-based order in the sheet.',
            ),
        })
        .strict(),
    })
    .strict()
    .describe(
      'Restores formats, merges, sizes, defined names and the formulas of conditional formats and validations exactly as they were. Produced by return_inverse_ops; rarely written by hand.',
    ),
} as const;

export type OpName = keyof typeof OP_SCHEMAS;
export const OP_NAMES = Object.keys(OP_SCHEMAS) as OpName[];
export type PatchOp = { [K in OpName]: z.output<(typeof OP_SCHEMAS)[K]> }[OpName];
export type OpOf<K extends OpName> = z.output<(typeof OP_SCHEMAS)[K]>;

/** One example per op, shown by exstruct_describe_op and in the docs. Each is validated in tests. */
export const OP_EXAMPLES: Record<OpName, Record<string, unknown>> = {
  set_value: { op: 'set_value', sheet: 'Sheet1', cell: 'B2', value: 'Taro Yamada' },
  set_formula: { op: 'set_formula', sheet: 'Sheet1', cell: 'C10', formula: '=SUM(C2:C9)' },
  add_sheet: { op: 'add_sheet', sheet: 'Summary' },
  set_range_values: {
    op: 'set_range_values',
    sheet: 'Sheet1',
    range: 'A1:B2',
    values: [
      ['Month', 'Sales'],
      ['Jan', 120],
    ],
  },
  fill_formula: { op: 'fill_formula', sheet: 'Sheet1', range: 'D2:D10', base_cell: 'D2', formula: '=B2*C2' },
  set_value_if: { op: 'set_value_if', sheet: 'Sheet1', cell: 'B2', expected: 'draft', value: 'final' },
  set_formula_if: { op: 'set_formula_if', sheet: 'Sheet1', cell: 'C5', expected: null, formula: '=A5+B5' },
  set_bold: { op: 'set_bold', sheet: 'Sheet1', range: 'A1:D1' },
  set_font_size: { op: 'set_font_size', sheet: 'Sheet1', cell: 'A1', font_size: 14 },
  set_font_color: { op: 'set_font_color', sheet: 'Sheet1', range: 'A1:D1', color: '#1F4E79' },
  set_fill_color: { op: 'set_fill_color', sheet: 'Sheet1', range: 'A1:D1', fill_color: '#D9E1F2' },
  set_alignment: {
    op: 'set_alignment',
    sheet: 'Sheet1',
    range: 'A1:D1',
    horizontal_align: 'center',
    wrap_text: true,
  },
  set_style: {
    op: 'set_style',
    sheet: 'Sheet1',
    range: 'A1:D1',
    bold: true,
    color: '#FFFFFF',
    fill_color: '#1F3864',
  },
  draw_grid_border: { op: 'draw_grid_border', sheet: 'Sheet1', base_cell: 'A1', row_count: 5, col_count: 4 },
  set_dimensions: {
    op: 'set_dimensions',
    sheet: 'Sheet1',
    columns: ['A', 'B'],
    column_width: 18,
    rows: [1],
    row_height: 24,
  },
  merge_cells: { op: 'merge_cells', sheet: 'Sheet1', range: 'A1:D1' },
  unmerge_cells: { op: 'unmerge_cells', sheet: 'Sheet1', range: 'A1:D1' },
  rename_sheet: { op: 'rename_sheet', sheet: 'Sheet1', new_name: 'Data' },
  delete_sheet: { op: 'delete_sheet', sheet: 'Old data' },
  auto_fit_columns: { op: 'auto_fit_columns', sheet: 'Sheet1', columns: ['A', 'B'], max_width: 50 },
  apply_table_style: {
    op: 'apply_table_style',
    sheet: 'Sheet1',
    range: 'A1:C10',
    style: 'TableStyleMedium2',
  },
  create_chart: {
    op: 'create_chart',
    sheet: 'Sheet1',
    chart_type: 'column',
    data_range: 'A1:C13',
    anchor_cell: 'E2',
    title: 'Sales',
  },
  delete_chart: { op: 'delete_chart', sheet: 'Sheet1', chart_name: 'Chart 1' },
  delete_table: { op: 'delete_table', sheet: 'Sheet1', table_name: 'Table1' },
  restore_design_snapshot: {
    op: 'restore_design_snapshot',
    sheet: 'Sheet1',
    design_snapshot: {
      cell_styles: [{ cell: 'A1', style_id: 0 }],
      column_widths: [{ column: 'B', width: null }],
    },
  },
};

/** Rules that zod cannot show as types (listed by the catalogue). */
export const OP_RULES: Partial<Record<OpName, string[]>> = {
  set_value: [
    'a value starting with "=" is rejected unless auto_formula=true (then it is written as a formula)',
    'cells inside a merged range (other than its top-left) or a multi-cell array formula cannot be written',
  ],
  set_formula: [
    'formula must start with "="',
    'use English function names and "," between arguments',
    'with array_range, the other cells of the range keep their values (as cached results) and must hold no formula; an array formula over exactly that range is replaced',
  ],
  add_sheet: ['the name must not exist yet (case-insensitive)'],
  set_range_values: [
    "values must have exactly the range's rows × columns",
    'a range covering a whole array formula replaces it; part of one cannot be written',
  ],
  fill_formula: [
    'range must be a single row or a single column',
    'base_cell is where the formula is written as given; other cells get it shifted',
  ],
  set_value_if: [
    'numbers compare by value (1 == 1.0), text after trimming, and "" equals empty',
    'on mismatch: status "skipped" and a warning; nothing is written',
  ],
  set_formula_if: [
    'expected may be a value or a formula ("=A1+1")',
    'on mismatch: status "skipped" and a warning',
  ],
  merge_cells: [
    'must not overlap an existing merged range',
    'at most 1,048,576 cells (a whole column, or 64 whole rows)',
  ],
  auto_fit_columns: [
    'widths come from the text each cell shows (number formats applied, bold/size counted), plus padding; text merged across columns does not count',
    'columns without text keep their width (a warning names them)',
  ],
  apply_table_style: [
    'the first row of range holds the headers: distinct, non-empty texts',
    'refused over merged cells or another table; the table name is unique in the workbook',
  ],
  create_chart: [
    'titles_from_data: the first row (or column with series_from_rows) of data_range names the series',
    'a first column of text below the titles becomes the categories unless category_range is given; scatter takes it as x values',
    'pie and doughnut draw the first series; the chart shows what the cells hold when Excel or LibreOffice opens the file',
  ],
  delete_chart: ['deletes a chart created earlier in the same call, or one already on the sheet'],
  delete_sheet: ['the last visible sheet cannot be deleted'],
  rename_sheet: ['new_name must not exist yet (case-insensitive)'],
};

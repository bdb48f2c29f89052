import { parseRange, tryParseA1, type CellRange } from '../ooxml/cell-ref.js';
import { parseRow } from './cells.js';
import type { SheetDeletion } from './formula.js';
import type { PatchOp } from './op-schemas.js';
import path from 'node:path';
import { parseRelationships, relsPartOf, type SheetEntry, type WorkbookPackage } from './package.js';
import { findElement, parseTree } from './xml.js';
import { parseDefinedNames } from './workbook-xml.js';
import { MAIN_NS, MAIN_NS_STRICT } from '../ooxml/namespaces.js';
import { loadSharedStrings } from './shared-strings.js';
import { SheetEdit, loadSheet } from './sheet-edit.js';
import { DEFAULT_STYLES_XML, StyleBook } from './styles.js';
import { keepChunks, KEEP_INFLATED_MAX, openInflated } from './inflate.js';
import { BLOCK_BYTES, EarlyBlocks } from './block-deflate.js';
import { inPart, readPartText } from './part-errors.js';
import { PatchOpError } from './types.js';
import { undoState } from './undo-state.js';
import { loadObjectNames } from './parts/object-parts.js';
import { SheetMetadata } from './sheet-metadata.js';
import { splitQualifiedRange } from '../ooxml/qualified-range.js';

/** A sheet as the ops see it: existing (with its part) or added by an earlier op. */
export interface SheetRef {
  name: string;
  entry: SheetEntry | undefined;
  edit: SheetEdit | undefined;
  state: string;
}

/** Largest sheet (uncompressed bytes) whose content is kept so its deletion can be undone. */
export const DELETE_INVERSE_MAX_BYTES = 8 * 1024 * 1024;

/**
 * Everything the ops change, in memory: the sheet list, the loaded parts of touched sheets, the
 * formats. Untouched parts of the package are never read into it.
 */
export class WorkbookEdit {
  readonly sheets: SheetRef[];
  readonly removed: SheetRef[] = [];
  readonly renames: { from: string; to: string }[] = [];
  readonly deletions: SheetDeletion[] = [];
  private stylesBook: StyleBook | undefined;
  stylesCreated = false;
  contentChanged = false;
  formulasChanged = false;
  /** Defined names (upper case), for the formula check. */
  definedNames = new Set<string>();
  /** The cell metadata part, where dynamic-array formulas get their `cm` (a new workbook has none). */
  sheetMetadata = new SheetMetadata(undefined, undefined, MAIN_NS);

  constructor(
    readonly pkg: WorkbookPackage | undefined,
    sheets: SheetRef[],
    private readonly stylesXml: string | undefined,
  ) {
    this.sheets = sheets;
  }

  find(name: string): SheetRef | undefined {
    const wanted = name.toLowerCase();
    return this.sheets.find((s) => s.name.toLowerCase() === wanted);
  }

  /** The sheet for an op, or a PatchOpError listing the sheets there are. */
  require(name: string): SheetRef & { edit: SheetEdit } {
    const ref = this.find(name);
    if (!ref) {
      throw new PatchOpError(
        `Sheet "${name}" does not exist. Sheets: ${this.sheets.map((s) => `"${s.name}"`).join(', ')}. Add it first with add_sheet, or fix the name.`,
      );
    }
    if (!ref.edit) {
      const kind = ref.entry?.kind ?? 'worksheet';
      throw new PatchOpError(`"${name}" is a ${kind}, not a worksheet; its cells cannot be edited.`);
    }
    return ref as SheetRef & { edit: SheetEdit };
  }

  get styles(): StyleBook {
    if (!this.stylesBook) {
      this.stylesCreated = this.stylesXml === undefined;
      this.stylesBook = new StyleBook(
        this.stylesXml ?? DEFAULT_STYLES_XML,
        this.pkg?.relatedPart('styles') ?? 'styles.xml',
      );
    }
    return this.stylesBook;
  }

  /** Whether the workbook counts days from 1904 (`<workbookPr date1904="1">`), for writing dates. */
  get date1904(): boolean {
    if (this.dateSystem1904 === undefined) {
      // SpreadsheetML's own workbookPr, not an extension's (`<x15:workbookPr>` in extLst).
      const pr = this.pkg
        ? findElement(this.pkg.workbookXml, 'workbookPr', { ns: [MAIN_NS, MAIN_NS_STRICT] })
        : undefined;
      const flag = pr?.attrs.get('date1904');
      this.dateSystem1904 = flag === '1' || flag === 'true';
    }
    return this.dateSystem1904;
  }

  private dateSystem1904: boolean | undefined;

  get stylesTouched(): StyleBook | undefined {
    return this.stylesBook?.changed ? this.stylesBook : undefined;
  }
}

/** A range spanning this many rows or more loads its sheet whole instead of row by row. */
const LOAD_WHOLE_FROM_ROWS = 100_000;

/** Which rows of which existing sheets the ops will touch, found before anything is applied. */
export function collectTargets(
  ops: readonly PatchOp[],
  sheetNames: readonly string[],
  /** Collects the existing sheets that an op deletes (they are loaded whole only to be undone). */
  deleted?: Set<string>,
): Map<string, Set<number> | 'all'> {
  const identity = new Map(sheetNames.map((n) => [n.toLowerCase(), n]));
  const targets = new Map<string, Set<number> | 'all'>();
  const rowsOf = (original: string) => {
    let set = targets.get(original);
    if (!set) targets.set(original, (set = new Set()));
    return set;
  };
  const addRange = (original: string | undefined, ref: string | undefined) => {
    if (!original || !ref) return;
    const set = rowsOf(original);
    if (set === 'all') return;
    let range: CellRange;
    try {
      range = parseRange(ref);
    } catch {
      return;
    }
    // A range over most of the sheet (merge_cells A1:XFD1048576) loads the sheet whole: the cost is then
    // the rows the sheet has, not a million row numbers.
    if (range.end.row - range.start.row >= LOAD_WHOLE_FROM_ROWS) {
      targets.set(original, 'all');
      return;
    }
    for (let r = range.start.row; r <= range.end.row; r++) set.add(r);
  };
  for (const op of ops) {
    const key = op.sheet.toLowerCase();
    const original = identity.get(key);
    switch (op.op) {
      case 'add_sheet':
        identity.set(key, '');
        break;
      case 'rename_sheet':
        identity.delete(key);
        identity.set(op.new_name.toLowerCase(), original ?? '');
        if (original) rowsOf(original);
        break;
      case 'delete_sheet':
        identity.delete(key);
        if (original) {
          targets.set(original, 'all');
          deleted?.add(original);
        }
        break;
      case 'set_value':
      case 'set_formula':
      case 'set_value_if':
      case 'set_formula_if':
        addRange(original, op.op === 'set_formula' ? (op.array_range ?? op.cell) : op.cell);
        break;
      case 'set_range_values':
      case 'fill_formula':
      case 'merge_cells':
        addRange(original, op.range);
        break;
      case 'set_bold':
      case 'set_font_size':
      case 'set_font_color':
      case 'set_fill_color':
      case 'set_alignment':
      case 'set_style':
        addRange(original, op.cell ?? op.range);
        break;
      case 'draw_grid_border':
        addRange(original, gridRange(op));
        break;
      case 'set_dimensions':
        if (original) {
          const set = rowsOf(original);
          if (set !== 'all') for (const r of op.rows ?? []) set.add(r);
        }
        break;
      case 'unmerge_cells':
      case 'delete_chart':
      case 'delete_table':
        if (original) rowsOf(original);
        break;
      case 'auto_fit_columns':
        // Every cell of the columns counts: the whole sheet is read.
        if (original) targets.set(original, 'all');
        break;
      case 'apply_table_style': {
        // The header row names the table's columns.
        const [first = '', last = first] = op.range.split(':');
        addRange(original, `${first}:${last.replace(/\d+$/, '')}${first.replace(/^[A-Z]+/, '')}`);
        break;
      }
      case 'create_chart': {
        if (original) rowsOf(original);
        // The data's first column (or row) tells whether it holds category labels.
        const data = splitQualifiedRange(op.data_range);
        addRange(data.sheet === undefined ? original : identity.get(data.sheet.toLowerCase()), data.range);
        break;
      }
      case 'restore_design_snapshot':
        for (const c of op.design_snapshot.cell_styles ?? []) addRange(original, c.cell);
        if (original) {
          const set = rowsOf(original);
          if (set !== 'all') for (const r of op.design_snapshot.row_heights ?? []) set.add(r.row);
        }
        break;
    }
  }
  return targets;
}

export function gridRange(op: {
  range?: string | undefined;
  base_cell?: string | undefined;
  row_count?: number | undefined;
  col_count?: number | undefined;
}): string | undefined {
  if (op.range) return op.range;
  const base = op.base_cell ? tryParseA1(op.base_cell) : undefined;
  if (!base || !op.row_count || !op.col_count) return undefined;
  const endCol = base.col + op.col_count - 1;
  let letters = '';
  for (let n = endCol + 1; n > 0; n = Math.floor((n - 1) / 26))
    letters = String.fromCharCode(65 + ((n - 1) % 26)) + letters;
  return `${op.base_cell}:${letters}${base.row + op.row_count - 1}`;
}

/** Opens the edit state of an existing workbook: loads only what `ops` will touch. */
export async function openWorkbookEdit(
  pkg: WorkbookPackage,
  ops: readonly PatchOp[],
  /** `earlyLevel`: the level the package will be written at, to deflate blocks ahead (none: a dry run). */
  options: { earlyLevel?: number | undefined } = {},
): Promise<WorkbookEdit> {
  const deleted = new Set<string>();
  const targets = collectTargets(
    ops,
    pkg.sheets.map((s) => s.name),
    deleted,
  );
  const stylesPart = pkg.relatedPart('styles');
  const stylesXml =
    stylesPart && pkg.has(stylesPart) ? await readPartText(pkg.archive, stylesPart) : undefined;
  const refs: SheetRef[] = pkg.sheets.map((entry) => ({
    name: entry.name,
    entry,
    edit: entry.kind === 'worksheet' ? new SheetEdit(entry.name, false) : undefined,
    state: entry.state,
  }));
  const wanted = new Set<number>();
  const record = (i: number) => {
    wanted.add(i);
    return undefined;
  };
  for (const ref of refs) {
    const rows = targets.get(ref.name);
    if (!rows || !ref.edit || !ref.entry) continue;
    let load: Set<number> | 'all' = rows;
    if (
      rows === 'all' &&
      deleted.has(ref.name) &&
      (pkg.archive.info(ref.entry.part)?.uncompressedSize ?? Infinity) > DELETE_INVERSE_MAX_BYTES
    ) {
      load = new Set();
      ref.edit.tooLargeToKeep = true;
    }
    const size = pkg.archive.info(ref.entry.part)?.uncompressedSize ?? Infinity;
    const keep = size <= KEEP_INFLATED_MAX ? [] : undefined;
    const { edit: sheet, entry } = ref;
    // A big sheet kept in memory and edited cell by cell: its blocks before the first row the ops may
    // change are deflated while the rest is read (the writer takes them if they come out the same).
    const early =
      keep && options.earlyLevel !== undefined && load !== 'all' && load.size > 0 && size > BLOCK_BYTES
        ? new EarlyBlocks(options.earlyLevel)
        : undefined;
    sheet.early = early;
    await inPart(entry.part, async () => {
      const source = (await openInflated(pkg.archive, entry.part)) as AsyncIterable<Buffer>;
      await loadSheet(sheet, keepChunks(source, keep, early), load, record, () => early?.stop());
    });
    ref.edit.inflated = keep;
  }
  const richStrings = new Set<number>();
  if (wanted.size > 0) {
    const sstPart = pkg.relatedPart('sharedStrings');
    const strings = await loadSharedStrings(pkg.archive, sstPart, wanted, richStrings);
    for (const ref of refs) {
      for (const [row, state] of ref.edit?.rows ?? []) {
        if (state.raw && [...state.cells.values()].some((c) => c.sharedIndex !== undefined))
          ref.edit!.rows.set(
            row,
            parseRow(state.raw, row, (i) => strings.get(i), ref.edit!.scope),
          );
      }
    }
  }
  for (const ref of refs)
    if (ref.edit && ref.entry && targets.has(ref.name)) await loadTableHeaders(pkg, ref.entry.part, ref.edit);
  const edit = new WorkbookEdit(pkg, refs, stylesXml);
  if (ops.some((op) => op.op === 'apply_table_style' || op.op === 'create_chart' || op.op === 'delete_chart'))
    await loadObjectNames(pkg, edit);
  undoState(edit).richStrings = richStrings; // undoing an overwrite cannot bring their runs back
  edit.definedNames = new Set(parseDefinedNames(pkg.workbookXml).map((n) => n.name.toUpperCase()));
  edit.sheetMetadata = await openSheetMetadata(pkg, ops);
  return edit;
}

/** Ops that may write a formula into a cell (values too, with auto_formula). */
const CELL_WRITERS = new Set<string>([
  'set_value',
  'set_value_if',
  'set_formula',
  'set_formula_if',
  'set_range_values',
  'fill_formula',
]);

/**
 * The workbook's cell metadata part, found through its relationship (read only when ops may write a
 * formula: a dynamic-array one must reuse or extend it, never shadow it with a second part).
 */
async function openSheetMetadata(pkg: WorkbookPackage, ops: readonly PatchOp[]): Promise<SheetMetadata> {
  const part = pkg.relatedPart('sheetMetadata');
  const exists = part !== undefined && pkg.has(part);
  const wanted = exists && ops.some((op) => CELL_WRITERS.has(op.op));
  const xml = wanted ? await readPartText(pkg.archive, part) : undefined;
  return new SheetMetadata(part, xml, pkg.conformance.main, exists && !wanted);
}

/** Header rows of the sheet's tables: Excel keeps their text in the table part too. */
async function loadTableHeaders(pkg: WorkbookPackage, part: string, sheet: SheetEdit): Promise<void> {
  const relsPart = relsPartOf(part);
  if (!pkg.has(relsPart)) return;
  const rels = parseRelationships(await readPartText(pkg.archive, relsPart), path.posix.dirname(part));
  for (const rel of rels) {
    if (!rel.type.endsWith('/table') || !rel.part || !pkg.has(rel.part)) continue;
    const xml = await readPartText(pkg.archive, rel.part);
    const root = parseTree(xml).find((n) => n.local === 'table');
    if (!root) continue;
    const attrs = root.attrs;
    const headerRows = Number(attrs.get('headerRowCount') ?? 1);
    const ref = attrs.get('ref');
    if (!ref || headerRows < 1) continue;
    try {
      const range = parseRange(ref);
      sheet.tableHeaders.push({
        name: attrs.get('displayName') ?? attrs.get('name') ?? 'table',
        range: { start: range.start, end: { row: range.start.row + headerRows - 1, col: range.end.col } },
      });
      sheet.tables.push({ name: attrs.get('displayName') ?? attrs.get('name') ?? 'table', range });
    } catch {
      /* an unreadable ref: nothing to guard */
    }
  }
}

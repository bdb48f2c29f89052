import { parseRange, type CellRange } from '../ooxml/cell-ref.js';
import { readThemeColors } from '../ooxml/colors.js';
import { findRel, isRelType, readRelationships } from '../ooxml/relationships.js';
import type { SheetEntry } from '../ooxml/workbook-part.js';
import type { WorkbookReader } from '../ooxml/workbook-reader.js';
import { readCellFormats, type CellFormats } from './cell-formats.js';
import type { RawCell } from './cell-text.js';
import { readDrawnObjects } from './drawing.js';
import { SheetGrid } from './grid.js';
import { key, type SheetSource } from './render-region.js';
import { scanSheetForRender } from './sheet-scan.js';

/** The workbook-wide parts every sheet's drawing needs, read once per capture. */
export interface WorkbookLook {
  formats: CellFormats;
  themeColors: string[];
  sharedStrings: string[];
}

export async function readWorkbookLook(reader: WorkbookReader): Promise<WorkbookLook> {
  const rels = reader.workbook.rels;
  const themeColors = await readThemeColors(reader.zip, findRel(rels, 'theme')?.target);
  const stylesPart = findRel(rels, 'styles')?.target;
  const stylesXml =
    stylesPart && reader.zip.has(stylesPart) ? await reader.zip.readText(stylesPart) : undefined;
  return {
    formats: readCellFormats(stylesXml, themeColors),
    themeColors,
    sharedStrings: await reader.sharedStrings(),
  };
}

export interface LoadedSheet {
  source: SheetSource;
  /** Every cell with a value or a format, merged ranges and drawn objects' anchors (undefined: empty sheet). */
  used: CellRange | undefined;
}

/** Reads one worksheet for drawing: its cells (values and formats), sizes, merges, view and drawing. */
export async function loadSheet(
  reader: WorkbookReader,
  entry: SheetEntry,
  look: WorkbookLook,
  warn: (message: string) => void,
): Promise<LoadedSheet> {
  const cells = new Map<number, RawCell>();
  let used: CellRange | undefined;
  const extend = (row: number, col: number) => {
    if (!used) used = { start: { row, col }, end: { row, col } };
    else {
      used.start.row = Math.min(used.start.row, row);
      used.start.col = Math.min(used.start.col, col);
      used.end.row = Math.max(used.end.row, row);
      used.end.col = Math.max(used.end.col, col);
    }
  };
  const { info, view } = await scanSheetForRender(reader.zip, entry.part!, (row, col, type, style, value) => {
    cells.set(key(row, col), { type, value, style });
    // A cell counts as used when it shows something: a value, a fill or a border.
    const format = look.formats.formats[style];
    if (value !== undefined || format?.fill || format?.left || format?.right || format?.top || format?.bottom)
      extend(row, col);
  });
  const merges: CellRange[] = [];
  for (const ref of info.merges) {
    try {
      const range = parseRange(ref);
      merges.push(range);
      extend(range.start.row, range.start.col);
      extend(range.end.row, range.end.col);
    } catch {
      warn(`Sheet "${entry.name}": the merged range "${ref}" is not a range and was ignored.`);
    }
  }
  const rels = await readRelationships(reader.zip, entry.part!);
  const drawingRel = info.drawingRelId ? rels.get(info.drawingRelId) : findRel(rels, 'drawing');
  let objects: SheetSource['objects'] = [];
  if (
    drawingRel &&
    !drawingRel.external &&
    isRelType(drawingRel, 'drawing') &&
    reader.zip.has(drawingRel.target)
  ) {
    objects = await readDrawnObjects(reader.zip, drawingRel.target, look.themeColors, warn);
    for (const object of objects) {
      const to = object.anchor.to ?? object.anchor.from;
      if (to) extend(to.row + 1, to.col);
    }
  }
  return {
    source: {
      name: entry.name,
      cells,
      grid: new SheetGrid(info, look.formats.defaultFont),
      merges,
      view,
      formats: look.formats,
      sharedStrings: look.sharedStrings,
      date1904: reader.workbook.date1904,
      objects,
    },
    used,
  };
}

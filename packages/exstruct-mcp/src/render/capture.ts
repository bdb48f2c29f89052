import { ToolError, type FileAccess } from '@mcp-workbench/core/engine';
import { formatRange, parseRange, type CellRange } from '../ooxml/cell-ref.js';
import type { SheetEntry } from '../ooxml/workbook-part.js';
import { WorkbookReader } from '../ooxml/workbook-reader.js';
import { printAreasOf } from '../extract/print-areas.js';
import { splitQualifiedRange } from '../ooxml/qualified-range.js';
import { FONT_HINT, missingCharacters } from './fonts/missing-warning.js';
import { TextMeasurer } from './fonts/text-measure.js';
import { MAX_DPI, MIN_DPI } from './limits.js';
import { rasterize } from './rasterize.js';
import { fitRowHeights, renderRegion } from './render-region.js';
import { loadSheet, readWorkbookLook } from './sheet-source.js';

export interface CaptureRequest {
  /** A sheet name; all visible worksheets when absent (and no range names one). */
  sheet?: string | undefined;
  /** `A1:B2` or `'Sheet 1'!A1:B2`; the print areas (else the used range) when absent. */
  range?: string | undefined;
  dpi: number;
}

export interface CapturedImage {
  sheet: string;
  /** The cells drawn, e.g. `A1:T50`. */
  range: string;
  png: Buffer;
  width: number;
  height: number;
}

/** Most pixels one image may have at the asked dpi; larger areas are cut into pages. */
const MAX_IMAGE_PIXELS = 24_000_000;
/** A whole sheet is cut into pages of at most this size (96-dpi pixels), at rows and columns. */
const PAGE = { width: 1600, height: 2000 };
/** Most images one call may write. */
export const MAX_IMAGES = 100;

function findSheet(reader: WorkbookReader, name: string): SheetEntry {
  const sheets = reader.workbook.sheets;
  const found =
    sheets.find((s) => s.name === name) ?? sheets.find((s) => s.name.toLowerCase() === name.toLowerCase());
  if (!found)
    throw new ToolError('SHEET_NOT_FOUND', `The workbook has no sheet named "${name}".`, {
      hint: `Use one of: ${reader.sheetNames.map((s) => JSON.stringify(s)).join(', ')}.`,
      details: { sheet_names: reader.sheetNames },
    });
  if (found.kind !== 'worksheet' || !found.part)
    throw new ToolError(
      'INVALID_ARGUMENT',
      `"${found.name}" is a ${found.kind}, not a worksheet; it has no cells to draw.`,
      {
        hint: 'Name a worksheet.',
      },
    );
  return found;
}

/** Plans which sheet areas to draw, as the original does: a range, else print areas, else the used range. */
function plan(reader: WorkbookReader, request: CaptureRequest, warn: (m: string) => void) {
  const qualified = request.range ? splitQualifiedRange(request.range) : undefined;
  if (
    qualified?.sheet &&
    request.sheet &&
    qualified.sheet.toLowerCase() !== request.sheet.trim().toLowerCase()
  )
    throw new ToolError(
      'INVALID_ARGUMENT',
      `range names sheet "${qualified.sheet}" but sheet is "${request.sheet}".`,
      {
        hint: "Give the sheet once: in `sheet`, or in the range as 'Sheet 1'!A1:B2.",
      },
    );
  const sheetName = request.sheet?.trim() || qualified?.sheet;
  if (qualified && !sheetName) {
    const worksheets = reader.workbook.sheets.filter((s) => s.kind === 'worksheet');
    if (worksheets.length !== 1)
      throw new ToolError(
        'INVALID_ARGUMENT',
        'sheet is required when range is given (the workbook has several sheets).',
        {
          hint: `Pass sheet, or qualify the range: "'${worksheets[0]?.name ?? 'Sheet1'}'!${qualified.range}".`,
        },
      );
  }
  const explicitRange = qualified ? parseCellRange(qualified.range) : undefined;
  const entries = sheetName
    ? [findSheet(reader, sheetName)]
    : qualified
      ? reader.workbook.sheets.filter((s) => s.kind === 'worksheet')
      : reader.workbook.sheets.filter((s) => {
          if (s.kind !== 'worksheet' || !s.part) {
            warn(`Sheet "${s.name}" is a ${s.kind}; only worksheets are drawn.`);
            return false;
          }
          if (s.state !== 'visible') {
            warn(`Sheet "${s.name}" is hidden and was not drawn (name it in sheet to draw it).`);
            return false;
          }
          return true;
        });
  return { entries, explicitRange };
}

function parseCellRange(text: string): CellRange {
  try {
    return parseRange(text);
  } catch {
    throw new ToolError('INVALID_ARGUMENT', `range "${text}" is not an A1 range.`, {
      hint: "Use A1:B2 or 'Sheet 1'!A1:B2.",
    });
  }
}

/**
 * Draws sheets or a range of a workbook to PNG images, from the workbook alone (no Excel, no
 * LibreOffice). Images come out one at a time through `onImage` (the caller writes them) so only one
 * is held in memory.
 */
export async function captureSheetImages(
  reader: WorkbookReader,
  request: CaptureRequest,
  onImage: (image: CapturedImage) => Promise<void>,
  warn: (message: string) => void,
  signal?: AbortSignal,
): Promise<{ fontsUsed: string[] }> {
  if (!(request.dpi >= MIN_DPI && request.dpi <= MAX_DPI))
    throw new ToolError('INVALID_ARGUMENT', `dpi must be between ${MIN_DPI} and ${MAX_DPI}.`, {
      hint: 'Use 96 for screen size, 144 (default) for a sharp image, 200+ for small text.',
    });
  const { entries, explicitRange } = plan(reader, request, warn);
  const look = await readWorkbookLook(reader);
  const measurer = new TextMeasurer();
  let count = 0;
  for (const entry of entries) {
    signal?.throwIfAborted();
    const sheetIndex = reader.workbook.sheets.indexOf(entry);
    const { source, used } = await loadSheet(reader, entry, look, warn);
    let areas: CellRange[];
    if (explicitRange) areas = [explicitRange];
    else {
      const print = printAreasOf(reader.workbook.definedNames, sheetIndex).map((a) => ({
        start: { row: a.r1, col: a.c1 },
        end: { row: Math.min(a.r2, used?.end.row ?? a.r1), col: Math.min(a.c2, used?.end.col ?? a.c1) },
      }));
      if (print.length) areas = print;
      else if (used) areas = [{ start: { row: 1, col: 0 }, end: used.end }];
      else {
        warn(`Sheet "${entry.name}" is empty; no image was drawn for it.`);
        continue;
      }
    }
    for (const area of areas) {
      fitRowHeights(source, area, measurer);
      const pages = paginate(source.grid, area, source.view, explicitRange !== undefined, request.dpi);
      if (pages.length > 1)
        warn(
          `${entry.name}!${formatRange(area)} was cut into ${pages.length} images (${pages.map(formatRange).join(', ')}).`,
        );
      for (const page of pages) {
        signal?.throwIfAborted();
        if (++count > MAX_IMAGES)
          throw new ToolError('LIMIT_EXCEEDED', `More than ${MAX_IMAGES} images would be drawn.`, {
            hint: 'Pass sheet and a smaller range.',
          });
        const drawn = renderRegion(source, page, measurer);
        const raster = await rasterize(drawn.svg, request.dpi, measurer.facesInUse(), {
          Software: 'exstruct-mcp',
          'exstruct:source': reader.file.split(/[\\/]/).pop() ?? '',
        });
        await onImage({ sheet: entry.name, range: formatRange(page), ...raster });
      }
    }
  }
  if (measurer.missing.size > 0)
    warn(`No font has ${missingCharacters(measurer.missing)}; they are drawn as a red "?". ${FONT_HINT}`);
  return { fontsUsed: measurer.systemFace ? ['bundled', measurer.systemFace.source] : ['bundled'] };
}

/**
 * Cuts an area into pages at rows and columns: at the sheet's manual page breaks, and so no page is
 * larger than a screen-sized page (whole sheets) or the pixel budget (explicit ranges).
 */
export function paginate(
  grid: { col(c: number): number; row(r: number): number },
  area: CellRange,
  view: { rowBreaks: number[]; colBreaks: number[] },
  explicit: boolean,
  dpi: number,
): CellRange[] {
  const scale = dpi / 96;
  const side = Math.sqrt(MAX_IMAGE_PIXELS) / scale;
  const limit = explicit ? { width: side, height: side } : PAGE;
  const cut = (from: number, to: number, size: (i: number) => number, max: number, breaks: number[]) => {
    const spans: [number, number][] = [];
    let begin = from;
    let sum = 0;
    for (let i = from; i <= to; i++) {
      const s = size(i);
      if (i > begin && (sum + s > max || (!explicit && breaks.includes(i - 1)))) {
        spans.push([begin, i - 1]);
        begin = i;
        sum = 0;
      }
      sum += s;
    }
    spans.push([begin, to]);
    return spans;
  };
  const rows = cut(area.start.row, area.end.row, (r) => grid.row(r), limit.height, view.rowBreaks);
  // Column breaks count columns from 1 (a break after column B is id 2): shift to 0-based.
  const cols = cut(
    area.start.col,
    area.end.col,
    (c) => grid.col(c),
    limit.width,
    view.colBreaks.map((b) => b - 1),
  );
  const pages: CellRange[] = [];
  for (const [c1, c2] of cols)
    for (const [r1, r2] of rows) pages.push({ start: { row: r1, col: c1 }, end: { row: r2, col: c2 } });
  return pages;
}

/** Opens a workbook (through `files`, the server's policy or a job's opened file) and draws it. */
export async function captureWorkbook(
  file: string,
  files: FileAccess,
  request: CaptureRequest,
): Promise<{ images: CapturedImage[]; warnings: string[] }> {
  const reader = await WorkbookReader.open(file, {}, files);
  const images: CapturedImage[] = [];
  const warnings: string[] = [];
  if (reader.decryptionNote) warnings.push(reader.decryptionNote);
  try {
    await captureSheetImages(
      reader,
      request,
      async (image) => {
        images.push(image);
      },
      (message) => warnings.push(message),
    );
  } finally {
    reader.close();
  }
  return { images, warnings };
}

import { ToolError, type FileAccess } from '@mcp-workbench/core/engine';
import { formatRange, parseRange, type CellRange } from '../ooxml/cell-ref.js';
import type { SheetEntry } from '../ooxml/workbook-part.js';
import { WorkbookReader } from '../ooxml/workbook-reader.js';
import { printAreasOf } from '../extract/print-areas.js';
import { splitQualifiedRange } from '../ooxml/qualified-range.js';
import { FONT_HINT, missingCharacters } from './fonts/missing-warning.js';
import { TextMeasurer } from './fonts/text-measure.js';
import { DrawClock } from './draw-clock.js';
import { MAX_DPI, MAX_IMAGES, MIN_DPI } from './limits.js';
import { paginate, type Pages } from './paginate.js';
import { printAreaToDraw } from './print-area.js';
import { rasterize } from './rasterize.js';
import { fitRowHeights, renderRegion, type SheetSource } from './render-region.js';
import { loadSheet, readWorkbookLook, type WorkbookLook } from './sheet-source.js';

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

/** Most images one call may write. */

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
  const began = Date.now();
  const { entries, explicitRange } = plan(reader, request, warn);
  const look = await readWorkbookLook(reader);
  const measurer = new TextMeasurer();
  // Every page is counted before any is drawn: a call over the image limit is refused at once, not
  // after minutes of drawing. Several sheets are read twice (counted, then drawn) rather than all kept.
  const sheet = (entry: SheetEntry, quiet: boolean) =>
    pagesOfSheet(reader, entry, look, measurer, explicitRange, request.dpi, quiet ? () => {} : warn);
  const first = entries.length === 1 ? await sheet(entries[0]!, false) : undefined;
  let total = first?.areas.reduce((sum, a) => sum + a.pages.count, 0) ?? 0;
  let counted = first ? 1 : 0;
  if (!first)
    for (const entry of entries) {
      signal?.throwIfAborted();
      for (const { pages } of (await sheet(entry, false)).areas) total += pages.count;
      counted++;
      // The sheets left are not read: the call is refused whatever they hold.
      if (total > MAX_IMAGES) break;
    }
  if (total > MAX_IMAGES) throw tooManyImages(total, counted < entries.length, explicitRange !== undefined);
  const clock = new DrawClock(total, began);
  for (const entry of entries) {
    signal?.throwIfAborted();
    const { source, areas } = first ?? (await sheet(entry, true));
    for (const { area, pages } of areas) {
      const list = pages.list();
      if (list.length > 1)
        warn(
          `${entry.name}!${formatRange(area)} was cut into ${list.length} images (${list.map(formatRange).join(', ')}).`,
        );
      for (const page of list) {
        signal?.throwIfAborted();
        clock.next();
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

/** Reads a sheet and cuts the areas to draw (a range, else print areas, else the used range) into pages. */
async function pagesOfSheet(
  reader: WorkbookReader,
  entry: SheetEntry,
  look: WorkbookLook,
  measurer: TextMeasurer,
  explicitRange: CellRange | undefined,
  dpi: number,
  warn: (message: string) => void,
): Promise<{ source: SheetSource; areas: { area: CellRange; pages: Pages }[] }> {
  const { source, used } = await loadSheet(reader, entry, look, warn);
  let areas: CellRange[];
  if (explicitRange) areas = [explicitRange];
  else {
    const sheetIndex = reader.workbook.sheets.indexOf(entry);
    const print = printAreasOf(reader.workbook.definedNames, sheetIndex);
    if (print.length)
      areas = print.flatMap((a) => {
        const area = printAreaToDraw(a, used);
        if (!area)
          warn(
            `The print area ${entry.name}!${formatRange({ start: { row: a.r1, col: a.c1 }, end: { row: a.r2, col: a.c2 } })} holds nothing to draw (the sheet's content is elsewhere); it was skipped, as Excel prints nothing for it.`,
          );
        return area ? [area] : [];
      });
    else if (used) areas = [{ start: { row: 1, col: 0 }, end: used.end }];
    else {
      warn(`Sheet "${entry.name}" is empty; no image was drawn for it.`);
      areas = [];
    }
  }
  return {
    source,
    areas: areas.map((area) => {
      // Rows without a height grow to fit their text before the area is cut at row heights.
      fitRowHeights(source, area, measurer);
      return { area, pages: paginate(source.grid, area, source.view, explicitRange !== undefined, dpi) };
    }),
  };
}

function tooManyImages(count: number, atLeast: boolean, explicit: boolean): ToolError {
  return new ToolError(
    'LIMIT_EXCEEDED',
    `The call would draw ${atLeast ? 'at least ' : ''}${count} images; at most ${MAX_IMAGES} are drawn per call. Nothing was drawn.`,
    {
      hint: explicit
        ? `Pass a smaller range (each image holds at most 24 megapixels at the asked dpi), or a lower dpi.`
        : `Pass sheet and a range (e.g. the part you need to see), or set a print area on the sheet; a lower dpi makes fewer pages.`,
      details: { images: count, max_images: MAX_IMAGES },
    },
  );
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

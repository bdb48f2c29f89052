import { ToolError } from '@mcp-workbench/core/engine';
import { BeyondGridError } from '../ooxml/columns.js';
import { isMainNs } from '../ooxml/namespaces.js';
import { RowFragmentError, RowTokenizer } from '../ooxml/row-fragment-parser.js';
import { XmlSyntaxError } from '../ooxml/sax.js';
import { streamSheetRows } from '../ooxml/sheet-row-stream.js';
import {
  emptyWorksheetInfo,
  worksheetHandlers,
  type CellHandler,
  type WorksheetInfo,
} from '../ooxml/worksheet-reader.js';
import { corrupt } from '../ooxml/xml.js';
import type { ZipArchive } from '../ooxml/zip-archive.js';

/** What drawing a sheet needs beyond what extraction reads: the view and the page breaks. */
export interface SheetView {
  showGridLines: boolean;
  /** Manual page breaks: a new page starts below these 1-based rows / right of these 1-based columns. */
  rowBreaks: number[];
  colBreaks: number[];
}

/**
 * Streams a worksheet once with extraction's handlers (cells to `onCell`, sizes, merges, drawing) and
 * also notes the sheet view's gridline setting and the manual page breaks.
 */
export async function scanSheetForRender(
  zip: ZipArchive,
  part: string,
  onCell: CellHandler,
): Promise<{ info: WorksheetInfo; view: SheetView }> {
  const info = emptyWorksheetInfo();
  const view: SheetView = { showGridLines: true, rowBreaks: [], colBreaks: [] };
  const handlers = worksheetHandlers(onCell, info);
  const open = handlers.open!;
  let breaks: number[] | undefined;
  let firstView = true;
  handlers.open = (name, attrs, tag) => {
    open(name, attrs, tag);
    if (tag.ns !== '' && !isMainNs(tag.ns)) return;
    if (name === 'sheetView' && firstView) {
      firstView = false;
      view.showGridLines = attrs.showGridLines !== '0' && attrs.showGridLines !== 'false';
    } else if (name === 'rowBreaks') breaks = view.rowBreaks;
    else if (name === 'colBreaks') breaks = view.colBreaks;
    else if (name === 'brk' && breaks && attrs.id !== undefined) breaks.push(Number(attrs.id));
    // Under zeroHeight a row's hidden="0" shows it; the tokenizer's row shortcut reports only
    // hidden="1", so rows are read as elements then.
    else if (name === 'sheetFormatPr' && info.zeroHeight) delete handlers.rowStart;
  };
  const decoder = new TextDecoder('utf-8');
  let rows: RowTokenizer | undefined;
  const guard = (run: () => void) => {
    try {
      run();
    } catch (error) {
      if (error instanceof RowFragmentError)
        throw corrupt(part, new XmlSyntaxError(part, error.message, error.limit));
      if (error instanceof BeyondGridError)
        throw new ToolError(
          'CORRUPT_WORKBOOK',
          `The worksheet part "${part}" was not read: ${error.message}.`,
          {
            hint: 'Excel never writes such a cell; open and re-save the file in Excel.',
          },
        );
      throw error;
    }
  };
  await streamSheetRows(zip, part, handlers, {
    start(scope) {
      rows = new RowTokenizer(handlers, scope);
    },
    rows(bytes) {
      guard(() => rows!.write(decoder.decode(bytes, { stream: true })));
    },
  }).catch((error: unknown) => {
    if (error instanceof BeyondGridError)
      guard(() => {
        throw error;
      });
    throw error;
  });
  guard(() => {
    rows?.write(decoder.decode());
    rows?.end();
  });
  return { info, view };
}

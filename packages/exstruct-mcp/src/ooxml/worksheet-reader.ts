import {
  emptyWorksheetInfo,
  worksheetHandlers,
  type CellHandler,
  type ScanOptions,
  type WorksheetInfo,
} from './worksheet-handlers.js';
import { RowFragmentError, RowTokenizer } from './row-fragment-parser.js';
import { streamSheetRows } from './sheet-row-stream.js';
import { XmlSyntaxError } from './sax.js';
import { corrupt } from './xml.js';
import type { ZipArchive } from './zip-archive.js';

export {
  emptyWorksheetInfo,
  worksheetHandlers,
  type CellHandler,
  type ColumnDef,
  type HyperlinkDef,
  type ScanOptions,
  type WorksheetInfo,
} from './worksheet-handlers.js';

/**
 * Streams a worksheet part once (never a DOM of the sheet): every cell goes to `onCell` as it is read, in
 * sheet order; the rest (merges, hyperlinks, sizes, drawing and table references) is returned. The
 * content of sheetData streams through the row tokenizer as it inflates, cut anywhere (so a sheet
 * without row breaks costs no more than any other); what surrounds it goes through the XML tokenizer.
 */
export async function scanWorksheet(
  zip: ZipArchive,
  part: string,
  onCell: CellHandler,
  options: ScanOptions = {},
): Promise<WorksheetInfo> {
  const info = emptyWorksheetInfo();
  const handlers = worksheetHandlers(onCell, info, options);
  const decoder = new TextDecoder('utf-8');
  let rows: RowTokenizer | undefined;
  const guard = (run: () => void) => {
    try {
      run();
    } catch (error) {
      if (!(error instanceof RowFragmentError)) throw error;
      throw corrupt(part, new XmlSyntaxError(part, error.message, error.limit));
    }
  };
  await streamSheetRows(zip, part, handlers, {
    start(scope) {
      rows = new RowTokenizer(handlers, scope);
    },
    rows(bytes) {
      guard(() => rows!.write(decoder.decode(bytes, { stream: true })));
    },
  });
  guard(() => {
    rows?.write(decoder.decode());
    rows?.end();
  });
  return info;
}

import {
  emptyWorksheetInfo,
  worksheetHandlers,
  type CellHandler,
  type ScanOptions,
  type WorksheetInfo,
} from './worksheet-handlers.js';
import { parseRowFragment, RowFragmentError, rowsText } from './row-fragment-parser.js';
import { streamSheetRows } from './sheet-row-stream.js';
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
 * sheet order; the rest (merges, hyperlinks, sizes, drawing and table references) is returned. The rows
 * go through the row tokenizer, one run after the other with the same handlers (so shared formulas and
 * rows without `r` carry over between runs); what surrounds them goes through saxes.
 */
export async function scanWorksheet(
  zip: ZipArchive,
  part: string,
  onCell: CellHandler,
  options: ScanOptions = {},
): Promise<WorksheetInfo> {
  const info = emptyWorksheetInfo();
  const handlers = worksheetHandlers(onCell, info, options);
  await streamSheetRows(zip, part, handlers, {
    rows(bytes) {
      try {
        parseRowFragment(rowsText(bytes), handlers);
      } catch (error) {
        if (!(error instanceof RowFragmentError)) throw error;
        throw corrupt(part, error);
      }
    },
  });
  return info;
}

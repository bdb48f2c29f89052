import {
  emptyWorksheetInfo,
  worksheetHandlers,
  type CellHandler,
  type ScanOptions,
  type WorksheetInfo,
} from './worksheet-handlers.js';
import { parseXmlStream } from './xml.js';
import type { ZipArchive } from './zip-archive.js';

export {
  colOfRef,
  emptyWorksheetInfo,
  rowOfRef,
  worksheetHandlers,
  type CellHandler,
  type ColumnDef,
  type HyperlinkDef,
  type ScanOptions,
  type WorksheetInfo,
} from './worksheet-handlers.js';

/**
 * Streams a worksheet part once with SAX (never a DOM of the sheet): every cell goes to `onCell` as it is
 * read, the rest (merges, hyperlinks, sizes, drawing and table references) is returned.
 */
export async function scanWorksheet(
  zip: ZipArchive,
  part: string,
  onCell: CellHandler,
  options: ScanOptions = {},
): Promise<WorksheetInfo> {
  const info = emptyWorksheetInfo();
  await parseXmlStream(await zip.openStream(part), part, worksheetHandlers(onCell, info, options));
  return info;
}

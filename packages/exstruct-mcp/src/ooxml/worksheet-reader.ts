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
import { ToolError } from '@mcp-workbench/core/engine';
import { BeyondGridError } from './columns.js';
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
      if (error instanceof BeyondGridError) throw beyondGrid(part, error);
      if (!(error instanceof RowFragmentError)) throw error;
      throw corrupt(part, new XmlSyntaxError(part, error.message, error.limit));
    }
  };
  await guardedStream(part, () =>
    streamSheetRows(zip, part, handlers, {
      start(scope) {
        rows = new RowTokenizer(handlers, scope);
      },
      rows(bytes) {
        guard(() => rows!.write(decoder.decode(bytes, { stream: true })));
      },
    }),
  );
  guard(() => {
    rows?.write(decoder.decode());
    rows?.end();
  });
  return info;
}

/** The surroundings of sheetData go through the same handlers (and so the same grid checks). */
async function guardedStream(part: string, run: () => Promise<void>): Promise<void> {
  try {
    await run();
  } catch (error) {
    if (error instanceof BeyondGridError) throw beyondGrid(part, error);
    throw error;
  }
}

function beyondGrid(part: string, error: BeyondGridError): ToolError {
  return new ToolError('CORRUPT_WORKBOOK', `The worksheet part "${part}" was not read: ${error.message}.`, {
    hint: 'Excel never writes such a cell; the file looks crafted or damaged. Open and re-save it in Excel.',
    details: { part },
  });
}

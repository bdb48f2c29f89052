/**
 * A spreadsheet as the Sheets API sees it: sheets with ids, titles and a grid of cells. Ranges are A1
 * notation with quoted sheet names; batchUpdate requests are applied to a copy and kept only when all
 * succeed (the real service's atomicity).
 */
export class SheetsError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

export interface FakeCell {
  value: string;
  link?: string;
  bold?: boolean;
}

export interface FakeSheet {
  sheetId: number;
  title: string;
  frozenRowCount: number;
  rows: (FakeCell | undefined)[][];
}

export interface GridRange {
  sheet: FakeSheet;
  startRow: number;
  endRow: number | undefined;
  startColumn: number;
  endColumn: number | undefined;
}

function columnIndex(letters: string): number {
  let n = 0;
  for (const ch of letters) n = n * 26 + (ch.charCodeAt(0) - 64);
  return n - 1;
}

export class FakeSpreadsheet {
  sheets: FakeSheet[] = [];
  constructor(
    readonly id: string,
    public title: string,
  ) {}

  sheetByTitle(title: string): FakeSheet | undefined {
    return this.sheets.find((s) => s.title === title);
  }

  sheetById(id: number): FakeSheet {
    const sheet = this.sheets.find((s) => s.sheetId === id);
    if (!sheet) throw new SheetsError(400, `Invalid requests: No grid with id: ${id}`);
    return sheet;
  }

  /** `'進捗'!A1:J`, `目録!C:C`, `A1:A2` (first sheet). */
  parseA1(range: string): GridRange {
    const match = /^(?:(?:'((?:[^']|'')+)'|([^!']+))!)?([A-Z]+)(\d+)?(?::([A-Z]+)(\d+)?)?$/.exec(range);
    if (!match) throw new SheetsError(400, `Unable to parse range: ${range}`);
    const title = match[1] !== undefined ? match[1].replace(/''/g, "'") : match[2];
    const sheet = title === undefined ? this.sheets[0] : this.sheetByTitle(title);
    if (!sheet) throw new SheetsError(400, `Unable to parse range: ${range}`);
    const startColumn = columnIndex(match[3]!);
    const startRow = match[4] ? Number(match[4]) - 1 : 0;
    const endColumn = match[5] ? columnIndex(match[5]) + 1 : match[4] ? startColumn + 1 : startColumn + 1;
    const endRow = match[6] ? Number(match[6]) : match[5] ? undefined : match[4] ? startRow + 1 : undefined;
    return { sheet, startRow, endRow, startColumn, endColumn };
  }

  /** Formatted values of a range, trailing empty cells and rows dropped (as values.get answers). */
  values(range: GridRange): string[][] {
    const out: string[][] = [];
    const last = range.endRow ?? range.sheet.rows.length;
    for (let r = range.startRow; r < Math.min(last, range.sheet.rows.length); r++) {
      const row = range.sheet.rows[r] ?? [];
      const cells: string[] = [];
      for (let c = range.startColumn; c < (range.endColumn ?? row.length); c++)
        cells.push(row[c]?.value ?? '');
      while (cells.length && cells[cells.length - 1] === '') cells.pop();
      out.push(cells);
    }
    while (out.length && out[out.length - 1]!.length === 0) out.pop();
    return out;
  }

  /** GridData of a range for includeGridData answers. */
  gridData(range: GridRange): Record<string, unknown> {
    const rows = this.values({ ...range, endColumn: range.endColumn ?? 26 });
    return {
      startRow: range.startRow,
      startColumn: range.startColumn,
      rowData: rows.map((cells) => ({
        values: cells.map((v) =>
          v === '' ? {} : { formattedValue: v, userEnteredValue: { stringValue: v } },
        ),
      })),
    };
  }

  clone(): FakeSpreadsheet {
    const copy = new FakeSpreadsheet(this.id, this.title);
    copy.sheets = structuredClone(this.sheets);
    return copy;
  }

  /** A person's hand edit: sort the data rows (below the header) by a column. */
  sortRows(title: string, column: number, descending = false): void {
    const sheet = this.sheetByTitle(title)!;
    const [header, ...rows] = sheet.rows;
    rows.sort((a, b) => {
      const x = a?.[column]?.value ?? '';
      const y = b?.[column]?.value ?? '';
      return descending ? y.localeCompare(x) : x.localeCompare(y);
    });
    sheet.rows = [header ?? [], ...rows];
  }

  /** A person inserts empty rows before a row (0-based). */
  insertRows(title: string, before: number, count: number): void {
    const sheet = this.sheetByTitle(title)!;
    sheet.rows.splice(before, 0, ...Array.from({ length: count }, () => []));
  }

  setCell(title: string, row: number, column: number, value: string): void {
    const sheet = this.sheetByTitle(title)!;
    while (sheet.rows.length <= row) sheet.rows.push([]);
    sheet.rows[row]![column] = value === '' ? undefined : { value };
  }

  /** Rows as plain strings (for assertions). */
  table(title: string): string[][] {
    const sheet = this.sheetByTitle(title);
    if (!sheet) throw new Error(`no sheet ${title}`);
    return this.values({ sheet, startRow: 0, endRow: undefined, startColumn: 0, endColumn: 26 });
  }
}

function fieldsOf(body: Record<string, unknown>): string {
  if (typeof body.fields !== 'string') throw new SheetsError(400, 'Invalid requests: fields is required.');
  return body.fields;
}

const CELL_FIELDS = new Set(['userEnteredValue', 'textFormatRuns', 'userEnteredFormat.textFormat.bold']);

function cellOf(data: Record<string, unknown>, fields: string[]): FakeCell | undefined {
  const value = data.userEnteredValue as { stringValue?: unknown } | undefined;
  const keys = Object.keys(value ?? {});
  if (value && (keys.length !== 1 || typeof value.stringValue !== 'string')) {
    throw new SheetsError(400, 'Invalid requests: userEnteredValue must hold one stringValue here.');
  }
  if (!fields.includes('userEnteredValue') || !value) return undefined;
  const runs = data.textFormatRuns as
    { startIndex?: number; format?: { link?: { uri?: string } } }[] | undefined;
  const link = fields.includes('textFormatRuns') ? runs?.[0]?.format?.link?.uri : undefined;
  const bold = (data.userEnteredFormat as { textFormat?: { bold?: boolean } } | undefined)?.textFormat?.bold;
  return { value: value.stringValue as string, ...(link ? { link } : {}), ...(bold ? { bold } : {}) };
}

/** One batchUpdate request applied to the spreadsheet (a copy); returns its reply. */
export function applySheetRequest(
  book: FakeSpreadsheet,
  request: Record<string, unknown>,
): Record<string, unknown> {
  const kinds = Object.keys(request);
  if (kinds.length !== 1)
    throw new SheetsError(400, `Invalid requests: one kind per request (got ${kinds.join(',')}).`);
  const kind = kinds[0]!;
  const body = request[kind] as Record<string, unknown>;
  switch (kind) {
    case 'addSheet': {
      const props = body.properties as {
        sheetId?: number;
        title?: string;
        gridProperties?: { frozenRowCount?: number };
      };
      if (!props?.title) throw new SheetsError(400, 'Invalid requests: addSheet needs a title.');
      if (book.sheetByTitle(props.title))
        throw new SheetsError(
          400,
          `Invalid requests: A sheet with the name "${props.title}" already exists.`,
        );
      const sheetId = props.sheetId ?? Math.floor(Math.random() * 1e9);
      if (!Number.isInteger(sheetId) || sheetId < 0 || book.sheets.some((s) => s.sheetId === sheetId)) {
        throw new SheetsError(400, `Invalid requests: sheet id ${sheetId} is taken or invalid.`);
      }
      book.sheets.push({
        sheetId,
        title: props.title,
        frozenRowCount: props.gridProperties?.frozenRowCount ?? 0,
        rows: [],
      });
      return { addSheet: { properties: { sheetId, title: props.title } } };
    }
    case 'updateSheetProperties': {
      const props = body.properties as {
        sheetId: number;
        title?: string;
        gridProperties?: { frozenRowCount?: number };
      };
      const sheet = book.sheetById(props.sheetId);
      for (const field of fieldsOf(body).split(',')) {
        if (field === 'title') {
          if (!props.title || book.sheets.some((s) => s !== sheet && s.title === props.title))
            throw new SheetsError(400, 'Invalid requests: title.');
          sheet.title = props.title;
        } else if (field === 'gridProperties.frozenRowCount')
          sheet.frozenRowCount = props.gridProperties?.frozenRowCount ?? 0;
        else throw new SheetsError(400, `Invalid requests: updateSheetProperties field "${field}".`);
      }
      return {};
    }
    case 'updateCells': {
      const fields = fieldsOf(body).split(',');
      if (fields.some((f) => !CELL_FIELDS.has(f)))
        throw new SheetsError(400, `Invalid requests: updateCells fields "${String(body.fields)}".`);
      const range = body.range as {
        sheetId: number;
        startRowIndex?: number;
        endRowIndex?: number;
        startColumnIndex?: number;
        endColumnIndex?: number;
      };
      if (!range)
        throw new SheetsError(
          400,
          'Invalid requests: updateCells needs a range (Prismind never writes by start).',
        );
      const sheet = book.sheetById(range.sheetId);
      const rows = (body.rows ?? []) as { values?: Record<string, unknown>[] }[];
      const startRow = range.startRowIndex ?? 0;
      const startCol = range.startColumnIndex ?? 0;
      const endCol =
        range.endColumnIndex ?? startCol + Math.max(0, ...rows.map((r) => r.values?.length ?? 0));
      const endRow = range.endRowIndex ?? Math.max(sheet.rows.length, startRow + rows.length);
      if (rows.length > endRow - startRow)
        throw new SheetsError(400, 'Invalid requests: more rows than the range.');
      for (let r = startRow; r < endRow; r++) {
        const data = rows[r - startRow]?.values ?? [];
        if (data.length > endCol - startCol)
          throw new SheetsError(400, 'Invalid requests: more cells than the range.');
        while (sheet.rows.length <= r) sheet.rows.push([]);
        const row = sheet.rows[r]!;
        for (let c = startCol; c < endCol; c++)
          row[c] = data[c - startCol] ? cellOf(data[c - startCol]!, fields) : undefined;
      }
      return {};
    }
    case 'appendCells': {
      const fields = fieldsOf(body).split(',');
      if (fields.some((f) => !CELL_FIELDS.has(f)))
        throw new SheetsError(400, 'Invalid requests: appendCells fields.');
      const sheet = book.sheetById(body.sheetId as number);
      let last = sheet.rows.length;
      while (last > 0 && !(sheet.rows[last - 1] ?? []).some((c) => c && c.value !== '')) last--;
      sheet.rows.length = last;
      for (const row of (body.rows ?? []) as { values?: Record<string, unknown>[] }[]) {
        sheet.rows.push((row.values ?? []).map((v) => cellOf(v, fields)));
      }
      return {};
    }
    default:
      throw new SheetsError(
        400,
        `Invalid requests: unsupported request kind ${kind} (the fake knows what Prismind sends).`,
      );
  }
}

import type { sheets_v4 } from '@googleapis/sheets';
import { ToolError } from '@mcp-workbench/core/engine';
import type { CatalogEntry, ProjectConfig, TaskRow } from '../../model/types.js';
import { failureOf, type GoogleApi } from './api.js';
import type { RemoteCache } from './cache.js';
import {
  a1,
  CATALOG_HEADERS,
  CATALOG_ID_COLUMN,
  CATALOG_WIDTH,
  catalogHasHeader,
  columnLetter,
  docUrl,
  entryCells,
  progressHasHeader,
  PROGRESS_HEADERS,
  PROGRESS_V1_WIDTH,
  PROGRESS_WIDTH,
  taskCells,
  taskKey,
  taskOf,
  type SheetTask,
} from './layout.js';
import type { SummaryRow } from './summary.js';

export type SheetKind = 'progress' | 'catalog';

/** One sheet's rows as read: grid row index (0-based), key and cells. */
interface SheetRow {
  row: number;
  key: string;
  cells: string[];
}

interface SheetState {
  rows: SheetRow[];
  header: string[] | undefined;
}

/** A row to write: the whole row the caller wants, and which columns changed. */
interface RowWrite {
  sheet: SheetKind;
  key: string;
  cells: string[];
  /** Columns to write when the row exists (all columns for a new row). */
  columns: number[];
  /** The caller expects the row to exist (an update), or not (an add). */
  exists: boolean;
  /** Cell with a link (the catalog's document name). */
  link?: { column: number; uri: string };
}

const RESPONSE_FIELDS =
  'updatedSpreadsheet(sheets(properties(sheetId,title),data(startRow,startColumn,rowData(values(formattedValue)))))';

function keyOf(sheet: SheetKind, cells: string[]): string {
  if (sheet === 'progress') {
    const task = taskOf(cells);
    return task ? taskKey(task.phase, task.task_id) : '';
  }
  return (cells[CATALOG_ID_COLUMN] ?? '').trim();
}

function stringCell(text: string, link?: string): sheets_v4.Schema$CellData {
  if (text === '') return {};
  return {
    userEnteredValue: { stringValue: text },
    ...(link ? { textFormatRuns: [{ startIndex: 0, format: { link: { uri: link } } }] } : {}),
  };
}

/** Contiguous runs of sorted column indexes: [0,1,2,5] → [[0,2],[5,5]]. */
function runs(columns: number[]): [number, number][] {
  const sorted = [...new Set(columns)].sort((a, b) => a - b);
  const out: [number, number][] = [];
  for (const c of sorted) {
    const last = out[out.length - 1];
    if (last && last[1] === c - 1) last[1] = c;
    else out.push([c, c]);
  }
  return out;
}

/**
 * The project's spreadsheet inside one Backend.write (or read): sheets are read once, with one
 * values.batchGet for every sheet needed; writes are collected and sent at the end in one
 * spreadsheets.batchUpdate. Rows are located by their key (phase + task id, doc id) in the rows read for
 * this very call, never by a row number remembered from another call; the batchUpdate returns the key
 * columns as they are after the write, and a write that landed on another row (a person sorted or
 * inserted rows in the instant between the read and the write) is put right: the other row gets back the
 * cells it had, ours goes to where the row is now.
 */
export class Spreadsheet {
  private readonly states = new Map<SheetKind, SheetState>();
  private readonly writes: RowWrite[] = [];
  private summary: SummaryRow[] | undefined;
  /** Warnings for the answer ("row 7 may have been overwritten"). */
  readonly warnings: string[] = [];
  /** What reached the sheet (for BACKEND_UNAVAILABLE messages). */
  written = false;

  constructor(
    private readonly api: GoogleApi,
    private readonly cache: RemoteCache,
    readonly project: ProjectConfig,
  ) {}

  get id(): string {
    return this.project.spreadsheet_id;
  }

  private title(sheet: SheetKind | 'summary'): string {
    return this.project.sheets[sheet];
  }

  private width(sheet: SheetKind): number {
    return sheet === 'progress' ? PROGRESS_WIDTH : CATALOG_WIDTH;
  }

  private requireSpreadsheet(): void {
    if (!this.id) {
      throw new ToolError(
        'NOT_FOUND',
        `プロジェクト '${this.project.project_id}' にスプレッドシートがありません。`,
        {
          hint: 'Set one with update_project(spreadsheet_id=…) — or set the project up with create_sheets=true so Prismind makes it.',
        },
      );
    }
  }

  /** Reads the sheets not read yet in this call, all in one values.batchGet. */
  async read(kinds: SheetKind[]): Promise<void> {
    const missing = [...new Set(kinds)].filter((k) => !this.states.has(k));
    if (missing.length === 0) return;
    this.requireSpreadsheet();
    const ranges = missing.map((k) => a1(this.title(k), `A1:${columnLetter(this.width(k) - 1)}`));
    let result: sheets_v4.Schema$BatchGetValuesResponse;
    try {
      result = await this.api.call('reading the spreadsheet', () =>
        this.api.sheets.spreadsheets.values.batchGet({
          spreadsheetId: this.id,
          ranges,
          majorDimension: 'ROWS',
          valueRenderOption: 'FORMATTED_VALUE',
        }),
      );
    } catch (error) {
      throw this.readError(error, missing);
    }
    missing.forEach((kind, i) => {
      const values = (result.valueRanges?.[i]?.values ?? []) as string[][];
      this.states.set(
        kind,
        this.stateOf(
          kind,
          values.map((r) => r.map((v) => String(v ?? ''))),
        ),
      );
    });
  }

  private readError(error: unknown, kinds: SheetKind[]): unknown {
    const failure = failureOf(error);
    if (failure.status === 404) {
      return new ToolError('NOT_FOUND', `スプレッドシート ${this.id} が見つかりません。`, {
        hint: 'Check spreadsheet_id (update_project), and that it is shared with the account Prismind uses (or that google.scopes includes https://www.googleapis.com/auth/spreadsheets for a spreadsheet Prismind did not create).',
        details: { spreadsheet_id: this.id },
      });
    }
    if (failure.status === 400 && /range/i.test(failure.message)) {
      const names = kinds.map((k) => this.title(k));
      return new ToolError(
        'NOT_FOUND',
        `スプレッドシートにシート ${names.map((n) => `'${n}'`).join(' / ')} が見つかりません。`,
        {
          hint: 'Rename the sheet back, or point the project at its new name with update_project(sheets={…}).',
          details: { spreadsheet_id: this.id, sheets: names },
        },
      );
    }
    return error;
  }

  private stateOf(kind: SheetKind, values: string[][]): SheetState {
    const hasHeader = kind === 'progress' ? progressHasHeader(values[0]) : catalogHasHeader(values[0]);
    const rows: SheetRow[] = [];
    values.forEach((cells, row) => {
      if (hasHeader && row === 0) return;
      const key = keyOf(kind, cells);
      if (key) rows.push({ row, key, cells });
    });
    return { rows, header: hasHeader ? (values[0] ?? []) : undefined };
  }

  private state(kind: SheetKind): SheetState {
    const state = this.states.get(kind);
    if (!state) throw new Error(`Spreadsheet.${kind} used before read()`);
    return state;
  }

  async tasks(): Promise<SheetTask[]> {
    await this.read(['progress']);
    return this.state('progress').rows.map((r) => ({ row: r.row, task: taskOf(r.cells)!, cells: r.cells }));
  }

  async entries(): Promise<{ row: number; cells: string[] }[]> {
    await this.read(['catalog']);
    return this.state('catalog').rows.map((r) => ({ row: r.row, cells: r.cells }));
  }

  /** An older sheet with columns A–G only (no v2 header and no v2 values). */
  private progressIsV1(): boolean {
    const state = this.state('progress');
    const wide = (cells: string[] | undefined) =>
      (cells ?? []).slice(PROGRESS_V1_WIDTH).some((c) => c.trim());
    if (state.header) return !wide(state.header);
    return !state.rows.some((r) => wide(r.cells));
  }

  putTask(task: TaskRow, before: TaskRow | undefined): void {
    const cells = taskCells(task);
    const old = before ? taskCells(before) : undefined;
    const columns = cells.map((_, i) => i).filter((i) => !old || old[i] !== cells[i]);
    this.writes.push({
      sheet: 'progress',
      key: taskKey(task.phase, task.task_id),
      cells,
      columns,
      exists: before !== undefined,
    });
  }

  putEntry(entry: CatalogEntry, before: CatalogEntry | undefined): void {
    const cells = entryCells(entry);
    const old = before ? entryCells(before) : undefined;
    const columns = cells.map((_, i) => i).filter((i) => !old || old[i] !== cells[i]);
    const existing = this.writes.findIndex((w) => w.sheet === 'catalog' && w.key === entry.doc_id);
    const write: RowWrite = {
      sheet: 'catalog',
      key: entry.doc_id,
      cells,
      columns,
      exists: before !== undefined,
      link: { column: 0, uri: docUrl(entry.doc_id) },
    };
    if (existing >= 0) {
      const prior = this.writes[existing]!;
      write.columns = [...new Set([...prior.columns, ...columns])];
      write.exists = prior.exists;
      this.writes[existing] = write;
    } else this.writes.push(write);
  }

  /** Keys of the rows this call is writing to a sheet. */
  pendingKeys(sheet: SheetKind): string[] {
    return this.writes.filter((w) => w.sheet === sheet).map((w) => w.key);
  }

  get dirty(): boolean {
    return this.writes.length > 0;
  }

  setSummary(rows: SummaryRow[]): void {
    this.summary = rows;
  }

  /** Sheet ids by title (cached; asked of the spreadsheet when unknown or stale). */
  private async sheetIds(titles: string[], refresh = false): Promise<Map<string, number>> {
    const ids = new Map<string, number>();
    for (const title of titles) {
      const cached = refresh ? undefined : this.cache.get('sheet', `${this.id}/${title}`);
      if (cached !== undefined) ids.set(title, Number(cached));
    }
    if (ids.size === titles.length) return ids;
    const meta = await this.api.call('reading the spreadsheet layout', () =>
      this.api.sheets.spreadsheets.get({
        spreadsheetId: this.id,
        fields: 'sheets.properties(sheetId,title)',
      }),
    );
    for (const sheet of meta.sheets ?? []) {
      const { title, sheetId } = sheet.properties ?? {};
      if (title === undefined || title === null || sheetId === undefined || sheetId === null) continue;
      this.cache.set('sheet', `${this.id}/${title}`, String(sheetId));
      if (titles.includes(title)) ids.set(title, sheetId);
    }
    const absent = titles.filter((t) => !ids.has(t));
    if (absent.length > 0) {
      throw new ToolError(
        'NOT_FOUND',
        `スプレッドシートにシート ${absent.map((n) => `'${n}'`).join(' / ')} が見つかりません。`,
        {
          hint: 'Rename the sheet back, or point the project at its new name with update_project(sheets={…}).',
          details: { spreadsheet_id: this.id, sheets: absent },
        },
      );
    }
    return ids;
  }

  /** The sheets a flush needs rows of: those with writes (to locate rows), progress for the summary. */
  needs(): SheetKind[] {
    const kinds = new Set<SheetKind>(this.writes.map((w) => w.sheet));
    kinds.add('progress');
    return [...kinds];
  }

  /**
   * Sends the collected writes (and the summary) in one spreadsheets.batchUpdate, checks where they
   * landed, and puts right any that landed on another row. Returns the warnings for the answer.
   */
  async flush(): Promise<void> {
    if (this.writes.length === 0 && !this.summary) return;
    this.requireSpreadsheet();
    await this.read(this.writes.map((w) => w.sheet));
    const kinds = [...new Set(this.writes.map((w) => w.sheet))];
    const titles = [...kinds.map((k) => this.title(k)), ...(this.summary ? [this.title('summary')] : [])];
    let ids = await this.sheetIds(titles);
    // Cells of every row as first read: what a row overwritten by mistake gets back.
    const original = new Map<string, Map<string, string[]>>();
    for (const kind of kinds) original.set(kind, new Map(this.state(kind).rows.map((r) => [r.key, r.cells])));
    let pending = [...this.writes];
    const restores: { sheet: SheetKind; row: number; cells: string[]; columns: number[] }[] = [];
    let refreshed = false;
    for (let round = 0; pending.length > 0 || restores.length > 0 || this.summary; round++) {
      if (round >= 4) {
        throw new ToolError('CONFLICT', 'スプレッドシートが書き込みのあいだ変更され続けました。', {
          hint: 'Someone is reorganising the sheet right now; try again in a moment.',
        });
      }
      const plan = this.plan(pending, restores.splice(0), ids);
      let response: sheets_v4.Schema$BatchUpdateSpreadsheetResponse;
      try {
        response = await this.api.call('writing the spreadsheet', () =>
          this.api.sheets.spreadsheets.batchUpdate({
            spreadsheetId: this.id,
            fields: RESPONSE_FIELDS,
            requestBody: {
              requests: plan.requests,
              includeSpreadsheetInResponse: true,
              responseIncludeGridData: true,
              responseRanges: kinds.map((k) => a1(this.title(k), `A:${columnLetter(this.width(k) - 1)}`)),
            },
          }),
        );
      } catch (error) {
        const failure = failureOf(error);
        if (!refreshed && failure.status === 400 && /grid|sheet/i.test(failure.message)) {
          // A sheet was deleted and made again, or the cached id is stale: look the ids up again.
          refreshed = true;
          ids = await this.sheetIds(titles, true);
          pending = plan.writes.map((w) => w.write);
          continue;
        }
        throw error;
      }
      this.written = true;
      this.summary = undefined;
      const after = new Map<SheetKind, SheetState>();
      for (const sheet of response.updatedSpreadsheet?.sheets ?? []) {
        const kind = kinds.find((k) => this.title(k) === sheet.properties?.title);
        if (!kind) continue;
        const data = sheet.data?.[0];
        const start = data?.startRow ?? 0;
        const values: string[][] = [];
        (data?.rowData ?? []).forEach((rowData, i) => {
          values[start + i] = (rowData.values ?? []).map((v) => v.formattedValue ?? '');
        });
        for (let i = 0; i < values.length; i++) values[i] ??= [];
        after.set(kind, this.stateOf(kind, values));
      }
      pending = [];
      for (const { write, row } of plan.writes) {
        const state = after.get(write.sheet);
        if (!state) continue;
        const here = state.rows.filter((r) => r.key === write.key);
        const landed = row === undefined ? here.length > 0 : here.some((r) => r.row === row);
        if (landed) continue;
        // Our cells went to a row that holds something else now: give that row its cells back.
        const other = state.rows.find((r) => r.row === row) ?? {
          row: row!,
          key: keyOf(write.sheet, []),
          cells: [],
        };
        const before = original.get(write.sheet)?.get(other.key);
        if (before) restores.push({ sheet: write.sheet, row: row!, cells: before, columns: write.columns });
        else
          this.warnings.push(
            `シート '${this.title(write.sheet)}' の${row! + 1}行目が書き込みと同時に変更されたため、上書きされた可能性があります。`,
          );
        pending.push(write);
      }
      for (const [kind, state] of after) this.states.set(kind, state);
    }
    this.writes.length = 0;
  }

  private plan(
    writes: RowWrite[],
    restores: { sheet: SheetKind; row: number; cells: string[]; columns: number[] }[],
    ids: Map<string, number>,
  ): { requests: sheets_v4.Schema$Request[]; writes: { write: RowWrite; row: number | undefined }[] } {
    const requests: sheets_v4.Schema$Request[] = [];
    const placed: { write: RowWrite; row: number | undefined }[] = [];
    const updateRow = (
      sheet: SheetKind,
      row: number,
      cells: string[],
      columns: number[],
      link?: RowWrite['link'],
    ) => {
      for (const [from, to] of runs(columns)) {
        requests.push({
          updateCells: {
            range: {
              sheetId: ids.get(this.title(sheet))!,
              startRowIndex: row,
              endRowIndex: row + 1,
              startColumnIndex: from,
              endColumnIndex: to + 1,
            },
            rows: [
              {
                values: cells
                  .slice(from, to + 1)
                  .map((text, i) =>
                    stringCell(text, link && link.column === from + i ? link.uri : undefined),
                  ),
              },
            ],
            fields:
              link && from <= link.column && link.column <= to
                ? 'userEnteredValue,textFormatRuns'
                : 'userEnteredValue',
          },
        });
      }
    };
    for (const r of restores) updateRow(r.sheet, r.row, r.cells, r.columns);
    let widen = false;
    for (const write of writes) {
      const state = this.state(write.sheet);
      let cells = write.cells;
      let columns = write.columns;
      if (write.sheet === 'progress' && this.progressIsV1()) {
        // An older sheet stays A–G unless this write sets a v2 value.
        const v2 = cells.slice(PROGRESS_V1_WIDTH).some((c, i) => c !== ['medium', '', ''][i]);
        if (v2) widen = true;
        else {
          cells = cells.slice(0, PROGRESS_V1_WIDTH);
          columns = columns.filter((c) => c < PROGRESS_V1_WIDTH);
        }
      }
      const found = state.rows.find((r) => r.key === write.key);
      if (found) {
        if (columns.length === 0) continue;
        updateRow(write.sheet, found.row, cells, write.exists ? columns : cells.map((_, i) => i), write.link);
        placed.push({ write, row: found.row });
      } else if (write.exists) {
        throw new ToolError(
          'CONFLICT',
          write.sheet === 'progress'
            ? `タスクの行がシート '${this.title('progress')}' から削除されていました。`
            : `ドキュメント ${write.key} の行がシート '${this.title('catalog')}' から削除されていました。`,
          { hint: 'Someone removed the row by hand; check the sheet, then try again.' },
        );
      } else {
        requests.push({
          appendCells: {
            sheetId: ids.get(this.title(write.sheet))!,
            rows: [
              {
                values: cells.map((text, i) =>
                  stringCell(text, write.link && write.link.column === i ? write.link.uri : undefined),
                ),
              },
            ],
            fields: write.link ? 'userEnteredValue,textFormatRuns' : 'userEnteredValue',
          },
        });
        placed.push({ write, row: undefined });
      }
    }
    if (widen) {
      const header = PROGRESS_HEADERS.slice(PROGRESS_V1_WIDTH);
      requests.push({
        updateCells: {
          range: {
            sheetId: ids.get(this.title('progress'))!,
            startRowIndex: 0,
            endRowIndex: 1,
            startColumnIndex: PROGRESS_V1_WIDTH,
            endColumnIndex: PROGRESS_WIDTH,
          },
          rows: [
            {
              values: header.map((h) => ({
                userEnteredValue: { stringValue: h },
                userEnteredFormat: { textFormat: { bold: true } },
              })),
            },
          ],
          fields: 'userEnteredValue,userEnteredFormat.textFormat.bold',
        },
      });
      const state = this.state('progress');
      state.header = [...(state.header ?? []).slice(0, PROGRESS_V1_WIDTH), ...header];
    }
    if (this.summary) {
      requests.push({
        updateCells: {
          // No end row: the rows below the summary are cleared.
          range: {
            sheetId: ids.get(this.title('summary'))!,
            startRowIndex: 0,
            startColumnIndex: 0,
            endColumnIndex: 2,
          },
          rows: this.summary.map((row) => ({
            values: row.map((c) => (typeof c === 'string' ? stringCell(c) : stringCell(c.text, c.link))),
          })),
          fields: 'userEnteredValue,textFormatRuns',
        },
      });
    }
    return { requests, writes: placed };
  }
}

/** Header rows of new sheets. */
export const HEADERS: Record<SheetKind, readonly string[]> = {
  progress: PROGRESS_HEADERS,
  catalog: CATALOG_HEADERS,
};

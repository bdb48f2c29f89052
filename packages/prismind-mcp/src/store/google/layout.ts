import {
  CATALOG_HEADERS,
  docTypeOf,
  PRIORITIES,
  PROGRESS_HEADERS,
  TASK_STATUSES,
  type Priority,
  type TaskStatus,
} from '../../model/vocab.js';
import type { CatalogEntry, TaskRow } from '../../model/types.js';

export { CATALOG_HEADERS, PROGRESS_HEADERS };

/**
 * The sheets' columns (headers from the spec, in model/vocab.ts). 進捗: H–J are v2 and optional: a sheet
 * with only A–G keeps working and is written only A–G unless a v2 field is set.
 */
export const PROGRESS_V1_WIDTH = 7;
export const PROGRESS_WIDTH = PROGRESS_HEADERS.length;

export const CATALOG_WIDTH = CATALOG_HEADERS.length;
/** Column of the doc id (C): the catalog's key. */
export const CATALOG_ID_COLUMN = 2;

export const SOURCE_GOOGLE_DOCS = 'Google Docs';

/** "A", "J", "M" for a 0-based column. */
export function columnLetter(index: number): string {
  let n = index + 1;
  let out = '';
  while (n > 0) {
    const rem = (n - 1) % 26;
    out = String.fromCharCode(65 + rem) + out;
    n = Math.floor((n - 1) / 26);
  }
  return out;
}

/** `'進捗'!A1:J` — the sheet name quoted (quotes doubled) as A1 notation requires. */
export function a1(sheet: string, range: string): string {
  return `'${sheet.replace(/'/g, "''")}'!${range}`;
}

const cell = (row: string[], i: number) => (row[i] ?? '').trim();
const list = (text: string) =>
  text
    .split(/[,、，\n]/)
    .map((s) => s.trim())
    .filter(Boolean);

const STATUS_WORDS: Record<string, TaskStatus> = {
  未着手: 'not_started',
  未開始: 'not_started',
  todo: 'not_started',
  進行中: 'in_progress',
  作業中: 'in_progress',
  対応中: 'in_progress',
  doing: 'in_progress',
  完了: 'completed',
  済: 'completed',
  done: 'completed',
  ブロック: 'blocked',
  ブロック中: 'blocked',
  保留: 'blocked',
};

/** A status cell as typed by a person ("完了", "Done", "in_progress"); undefined when not one. */
export function statusOf(text: string): TaskStatus | undefined {
  const t = text
    .normalize('NFKC')
    .trim()
    .toLowerCase()
    .replace(/[\s-]+/g, '_');
  if ((TASK_STATUSES as readonly string[]).includes(t)) return t as TaskStatus;
  return STATUS_WORDS[t] ?? STATUS_WORDS[text.trim()];
}

function priorityOf(text: string): Priority {
  const t = text.normalize('NFKC').trim().toLowerCase();
  if ((PRIORITIES as readonly string[]).includes(t)) return t as Priority;
  return ({ 高: 'high', 中: 'medium', 低: 'low' } as Record<string, Priority>)[t] ?? 'medium';
}

/** A task row of the sheet, with the grid row it was read from (0-based). */
export interface SheetTask {
  row: number;
  task: TaskRow;
  cells: string[];
}

/** Row 1 is the header unless it reads as a task (an older sheet a person made without one). */
export function progressHasHeader(first: string[] | undefined): boolean {
  if (!first) return true;
  return statusOf(cell(first, 3)) === undefined || cell(first, 1) === 'タスクID';
}

export function taskOf(cells: string[]): TaskRow | undefined {
  const phase = cell(cells, 0);
  const taskId = cell(cells, 1);
  if (!phase && !taskId) return undefined; // a blank row, or a note a person typed further right
  return {
    phase,
    task_id: taskId,
    name: cell(cells, 2),
    status: statusOf(cell(cells, 3)) ?? 'not_started',
    blockers: list(cell(cells, 4)),
    completed_at: cell(cells, 5) || null,
    notes: cell(cells, 6),
    priority: priorityOf(cell(cells, 7)),
    category: cell(cells, 8),
    blocked_by: list(cell(cells, 9)),
    description: '',
    updated_at: '',
  };
}

export function taskCells(task: TaskRow): string[] {
  return [
    task.phase,
    task.task_id,
    task.name,
    task.status,
    task.blockers.join(', '),
    task.completed_at ?? '',
    task.notes,
    task.priority,
    task.category,
    task.blocked_by.join(', '),
  ];
}

/** Phase and task id, as the sheet's key of a task. */
export function taskKey(phase: string, taskId: string): string {
  return `${phase.normalize('NFKC').trim().toLowerCase()}\u0000${taskId.normalize('NFKC').trim().toLowerCase()}`;
}

export function catalogHasHeader(first: string[] | undefined): boolean {
  return !first || cell(first, CATALOG_ID_COLUMN) === 'ID' || cell(first, 0) === 'ドキュメント名';
}

/** A catalog row as the sheet has it; fields the sheet does not carry come from `cached` when given. */
export function entryOf(cells: string[], project: string, cached?: CatalogEntry): CatalogEntry | undefined {
  const docId = cell(cells, CATALOG_ID_COLUMN);
  if (!docId) return undefined;
  let docType: CatalogEntry['doc_type'];
  try {
    docType = docTypeOf(cell(cells, 3) || 'その他');
  } catch {
    docType = 'その他';
  }
  const status = cell(cells, 12).toLowerCase();
  const updated = cell(cells, 10);
  return {
    doc_id: docId,
    name: cell(cells, 0) || docId,
    source: cell(cells, 1) || SOURCE_GOOGLE_DOCS,
    doc_type: docType,
    project: cell(cells, 4) || project,
    phase_task: cell(cells, 5) || '共通',
    feature: cell(cells, 6),
    reference_timing: cell(cells, 7),
    related_docs: list(cell(cells, 8)),
    keywords: list(cell(cells, 9)),
    updated_at: updated || cached?.updated_at || '',
    created_by: cell(cells, 11),
    status: status === 'archived' || status === 'アーカイブ' ? 'archived' : 'active',
    created_at: cached?.created_at ?? updated,
    location: docId,
    content_hash: cached?.content_hash ?? '',
    keywords_generated: cached?.keywords_generated ?? false,
  };
}

export function entryCells(entry: CatalogEntry): string[] {
  return [
    entry.name,
    entry.source,
    entry.doc_id,
    entry.doc_type,
    entry.project,
    entry.phase_task,
    entry.feature,
    entry.reference_timing,
    entry.related_docs.join(', '),
    entry.keywords.join(', '),
    entry.updated_at,
    entry.created_by,
    entry.status,
  ];
}

export function docUrl(docId: string): string {
  return `https://docs.google.com/document/d/${encodeURIComponent(docId)}/edit`;
}

export function sheetUrl(spreadsheetId: string, sheetId?: number): string {
  return `https://docs.google.com/spreadsheets/d/${encodeURIComponent(spreadsheetId)}/edit${sheetId === undefined ? '' : `#gid=${sheetId}`}`;
}

export function folderUrl(folderId: string): string {
  return `https://drive.google.com/drive/folders/${encodeURIComponent(folderId)}`;
}

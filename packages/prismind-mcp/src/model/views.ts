import { dependencyIds, deriveState, phaseKey, phasesOf, phaseTaskOf } from './progress.js';
import { CATALOG_HEADERS, PROGRESS_HEADERS } from './vocab.js';
import type { CatalogEntry, ProjectConfig, SessionState, TaskRow } from './types.js';

/**
 * The human-readable views of a project in Markdown: what the spec's Google Sheets (進捗, 目録, サマリ)
 * show a person. The local backend writes them as files; every backend serves them as MCP resources.
 */

/** A table cell: one line, pipes escaped. */
function cell(value: string | null | undefined): string {
  return (value ?? '').replace(/\\/g, '\\\\').replace(/\|/g, '\\|').replace(/\r?\n/g, '<br>');
}

/** A link destination a person can still read: `<…>` allows spaces and non-ASCII as they are. */
function linkTarget(location: string): string {
  return `<${location.replace(/[<>]/g, encodeURIComponent)}>`;
}

function table(headers: readonly string[], rows: string[][]): string {
  const lines = [`| ${headers.join(' | ')} |`, `| ${headers.map(() => '---').join(' | ')} |`];
  for (const row of rows) lines.push(`| ${row.map(cell).join(' | ')} |`);
  return lines.join('\n');
}

const GENERATED = '<!-- prismind-mcp が生成するファイルです。手で編集しても次の更新で上書きされます。 -->';

export function progressView(project: ProjectConfig, tasks: TaskRow[]): string {
  // One phase, one label ("P4" rows written before are shown under "Phase 4").
  const labels = new Map(phasesOf(tasks).map((g) => [phaseKey(g.phase).toLowerCase(), g.phase]));
  const fullIds = new Set(tasks.map((t) => phaseTaskOf(t).toLowerCase()));
  const rows = tasks.map((t) => [
    labels.get(phaseKey(t.phase).toLowerCase()) ?? t.phase,
    t.task_id,
    t.name,
    t.status,
    t.blockers.join(', '),
    t.completed_at ?? '',
    t.notes,
    t.priority,
    t.category,
    // Full ids: a bare "T01" in a table of every phase could be any phase's T01.
    dependencyIds(t, fullIds).join(', '),
  ]);
  return `${GENERATED}\n# 進捗 — ${project.name}\n\n${table(PROGRESS_HEADERS, rows)}\n`;
}

export function catalogView(project: ProjectConfig, entries: CatalogEntry[]): string {
  const link = (e: CatalogEntry) => `[${e.name.replace(/[[\]]/g, '\\$&')}](${linkTarget(e.location)})`;
  const rows = entries.map((e) => [
    link(e),
    e.source,
    e.doc_id,
    e.doc_type,
    e.project,
    e.phase_task,
    e.feature,
    e.reference_timing,
    e.related_docs.join(', '),
    e.keywords.join(', '),
    e.updated_at,
    e.created_by,
    e.status,
  ]);
  return `${GENERATED}\n# 目録 — ${project.name}\n\n${table(CATALOG_HEADERS, rows)}\n`;
}

/** The phase_task whose documents the summary links (the current task's). */
export function summaryPhaseTask(tasks: TaskRow[]): string | undefined {
  const state = deriveState(tasks);
  return state.current ? phaseTaskOf(state.current) : undefined;
}

/**
 * The spec's サマリ sheet: name, current phase/task, last update, blockers, next action, links.
 * `related`: the active catalog entries of the current task (see summaryPhaseTask). */
export function summaryView(
  project: ProjectConfig,
  tasks: TaskRow[],
  session: SessionState | undefined,
  related: CatalogEntry[],
): string {
  const state = deriveState(tasks);
  const blockers = [...new Set([...state.blockers, ...(session?.blockers ?? [])])];
  const updated = [
    session?.updated_at ?? '',
    ...tasks.map((t) => t.updated_at),
    ...related.map((e) => e.updated_at),
  ]
    .sort()
    .pop();
  const lines = [
    GENERATED,
    `# サマリ — ${project.name}`,
    '',
    `- プロジェクト名: ${project.name} (${project.project_id})`,
    `- 説明: ${project.description || '—'}`,
    `- 現在のフェーズ: ${state.current_phase || '—'}`,
    `- 現在のタスク: ${state.current_task || '—'}`,
    `- 直近の完了: ${state.last_completed || '—'}`,
    `- 最終更新日時: ${updated || project.updated_at}`,
    '',
    '## ブロッカー',
    '',
    ...(blockers.length ? blockers.map((b) => `- ${b}`) : ['- なし']),
    '',
    '## 次のアクション',
    '',
    session?.next_action ? session.next_action : '—',
    '',
    '## 関連リンク',
    '',
    '- [進捗](進捗.md)',
    '- [目録](目録.md)',
    ...related.map((e) => `- [${e.name}](${linkTarget(e.location)})（現在タスクの${e.doc_type}）`),
    '',
  ];
  return lines.join('\n');
}

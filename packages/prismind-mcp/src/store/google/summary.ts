import { deriveState } from '../../model/progress.js';
import type { CatalogEntry, ProjectConfig, SessionState, TaskRow } from '../../model/types.js';
import { docUrl } from './layout.js';

/** A summary cell: text, or text linking somewhere. */
export type SummaryCell = string | { text: string; link: string };
export type SummaryRow = [SummaryCell, SummaryCell];

/**
 * The spec's サマリ sheet as two columns (項目 / 内容): project name, current phase and task, last
 * update, blockers (one per row), next action and related links (the progress and catalog sheets, the
 * current task's documents). Regenerated whole on every write, like the local store's サマリ.md.
 */
export function summaryRows(
  project: ProjectConfig,
  tasks: TaskRow[],
  session: SessionState | undefined,
  related: CatalogEntry[],
  links: { progress: string; catalog: string },
): SummaryRow[] {
  const state = deriveState(tasks);
  const blockers = [...new Set([...state.blockers, ...(session?.blockers ?? [])])];
  const updated = [
    session?.updated_at ?? '',
    ...tasks.map((t) => t.completed_at ?? ''),
    ...related.map((e) => e.updated_at),
  ]
    .sort()
    .pop();
  const rows: SummaryRow[] = [
    ['項目', '内容'],
    ['プロジェクト名', `${project.name} (${project.project_id})`],
    ['説明', project.description || '—'],
    ['現在のフェーズ', state.current_phase || '—'],
    ['現在のタスク', state.current_task || '—'],
    ['直近の完了', state.last_completed || '—'],
    ['最終更新日時', updated || project.updated_at],
  ];
  (blockers.length ? blockers : ['なし']).forEach((b, i) => rows.push([i === 0 ? 'ブロッカー' : '', b]));
  rows.push(['次のアクション', session?.next_action || '—']);
  rows.push(['関連リンク', { text: project.sheets.progress, link: links.progress }]);
  rows.push(['', { text: project.sheets.catalog, link: links.catalog }]);
  for (const e of related)
    rows.push(['', { text: `${e.name}（現在タスクの${e.doc_type}）`, link: docUrl(e.doc_id) }]);
  return rows;
}

import { ToolError } from '@mcp-workbench/core/engine';
import { deriveState, phaseKey, phaseTaskOf } from '../model/progress.js';
import type { CatalogEntry, ProjectConfig, SessionState, TaskRow } from '../model/types.js';
import type { CatalogFilter, Stores } from '../store/backend.js';
import { LEGACY_USER } from '../config/config.js';
import { nowIso, resolveProject, userOf, type Engine } from './engine.js';
import { continueFrom, handsOver, sameHandover, teamHandover } from './handover.js';

export const SAVED_MESSAGE = 'セッション状態を保存しました。';
export const NO_SESSION_NOTE =
  '実行中のセッションはありませんでした（start_session で開始していないか、すでに end_session で終了しています）。';
export const PRESSURE_MESSAGE = 'コンテキストが逼迫しています。セッション状態を保存しました。';

export interface DocReference {
  name: string;
  doc_id: string;
  reason: string;
}

function emptyState(project: string, user: string, at: string): SessionState {
  return {
    project,
    user,
    current_phase: '',
    current_task: '',
    last_completed: '',
    blockers: [],
    notes: '',
    last_summary: '',
    next_action: '',
    updated_at: at,
    started_at: null,
  };
}

/**
 * Brings a saved state in line with the progress sheet (the sheet is the truth, spec step 5). Returns
 * the corrected state and what was corrected, in words.
 */
export function reconcile(
  state: SessionState,
  tasks: TaskRow[],
): { state: SessionState; corrected: string[] } {
  if (tasks.length === 0) return { state, corrected: [] };
  const derived = deriveState(tasks);
  const next = { ...state };
  const corrected: string[] = [];
  for (const key of ['current_phase', 'current_task', 'last_completed'] as const) {
    if (derived[key] !== state[key]) {
      if (state[key]) corrected.push(`${key}: ${state[key]} → ${derived[key] || '（なし）'}`);
      next[key] = derived[key];
    }
  }
  // Blockers of blocked tasks come from the sheet; blockers saved with the session that no task carries stay.
  const sheetBlockers = new Set(derived.blockers);
  const taskIds = new Set(tasks.map((t) => `${t.task_id}:`));
  const own = state.blockers.filter((b) => ![...taskIds].some((id) => b.startsWith(id)));
  next.blockers = [...new Set([...sheetBlockers, ...own])];
  return { state: next, corrected };
}

/**
 * Documents worth reading now, each with its reason: the current task's documents, then the current
 * phase's, then those marked for session start, then the project's common design docs and rules.
 */
export async function recommendedDocs(stores: Stores, project: ProjectConfig, tasks: TaskRow[], max = 5) {
  const derived = deriveState(tasks);
  const picked = new Map<string, DocReference>();
  const add = (entries: CatalogEntry[], reason: (e: CatalogEntry) => string) => {
    for (const e of entries) {
      if (picked.size >= max) return;
      if (!picked.has(e.doc_id)) picked.set(e.doc_id, { name: e.name, doc_id: e.doc_id, reason: reason(e) });
    }
  };
  const base = { project: project.project_id, status: 'active' as const, limit: max };
  // Every list in one call (one round trip on a database server), each with its reason.
  const wanted: { filter: CatalogFilter; reason: (e: CatalogEntry) => string }[] = [];
  if (derived.current) {
    const phaseTask = phaseTaskOf(derived.current);
    wanted.push({
      filter: { ...base, phase_task: phaseTask },
      reason: (e) => `現在タスク (${phaseTask}) の${e.doc_type}`,
    });
    const key = phaseKey(derived.current.phase);
    if (/^P\d/.test(key)) {
      wanted.push({
        filter: { ...base, phase_task_prefix: `${key}-` },
        reason: (e) => `現在フェーズ (${derived.current_phase}) の${e.doc_type} (${e.phase_task})`,
      });
    }
  }
  wanted.push(
    {
      filter: { ...base, reference_timing: 'セッション開始時' },
      reason: () => 'セッション開始時に参照する資料',
    },
    { filter: { ...base, phase_task: '共通' }, reason: (e) => `プロジェクト共通の${e.doc_type}` },
  );
  const lists = await stores.catalog.listEach(wanted.map((w) => w.filter));
  wanted.forEach((w, i) => add(lists[i] ?? [], w.reason));
  return [...picked.values()];
}

/** Where the session's user came from, in words (start_session says who it works for). */
function userSourceText(engine: Engine, given: string | undefined): string {
  if (given?.trim()) return 'user 引数';
  if (engine.active) return '実行中のセッション';
  switch (engine.config.user_source) {
    case 'config':
      return 'config.toml の session.default_user';
    case 'env':
      return '環境変数 PRISMIND_USER';
    case 'os':
      return 'OS のアカウント名。session.default_user か PRISMIND_USER で変更可';
    default:
      return '既定値。session.default_user か PRISMIND_USER で各自の名前を設定してください';
  }
}

// start_session saves the current project, the session's start and the progress sheet's corrections:
// all derivable again, so it need not wait for a database server's disk (WriteOptions.durable).
const START_IS_DERIVABLE = { durable: false } as const;

export async function startSession(
  engine: Engine,
  input: { project?: string | undefined; user?: string | undefined },
) {
  const user = userOf(engine, input.user);
  const source = userSourceText(engine, input.user);
  // On a store this process may only read, the session is loaded without recording its start.
  const record = !engine.backend.readOnly;
  const run = <T>(work: (stores: Stores) => Promise<T>) =>
    record ? engine.backend.write(work, START_IS_DERIVABLE) : engine.backend.read(work);
  return run(async (stores) => {
    const project = await resolveProject(engine, stores, input.project, user);
    const at = nowIso(engine);
    if (record) await stores.projects.setCurrent(user, { project_id: project.project_id, switched_at: at });
    const own = await stores.sessions.get(project.project_id, user);
    // A store from before identities saved everyone's state as LEGACY_USER: each person starts from it once.
    const legacy =
      own === undefined && user !== LEGACY_USER
        ? await stores.sessions.get(project.project_id, LEGACY_USER)
        : undefined;
    const previous = own ?? (legacy ? { ...legacy, user } : undefined);
    const saved = previous ?? emptyState(project.project_id, user, at);
    // Nothing of their own to continue from (new to the project): the team's last handover is shown.
    const team = await teamHandover(stores, project.project_id, user);
    const handover = handsOver(previous) ? undefined : team;
    // The user continues from their own state (states are per user), but is told of a teammate's newer one.
    const newer = handsOver(previous) && team && team.updated_at > previous.updated_at ? team : undefined;
    const tasks = await stores.tracker.list(project.project_id);
    const mine = reconcile(saved, tasks);
    const { state, corrected } = handover ? reconcile(continueFrom(saved, handover), tasks) : mine;
    // Only the start is recorded: the user's state keeps the time it was last saved, so the project's
    // last handover (SessionStore.latest, the summary view) stays the last one someone saved.
    if (record)
      await stores.sessions.put({ ...mine.state, started_at: at, updated_at: previous?.updated_at ?? at });
    const docs = await recommendedDocs(stores, project, tasks);
    // Once every store call is through: a store may report a failed write at its next call.
    engine.active = { project: project.project_id, user, started_at: at };
    const lines = [
      `プロジェクト '${project.project_id}' (${project.name}) のセッションを開始しました。ユーザー: ${user}（${source}）`,
    ];
    if (legacy)
      lines.push(`共有ユーザー '${LEGACY_USER}' として保存されていたセッション状態を引き継ぎました。`);
    if (corrected.length > 0)
      lines.push(`進捗シートとの差異を修正しました（進捗を正としています）: ${corrected.join('; ')}`);
    if (!previous) lines.push('このプロジェクトでの初回のセッションです。');
    if (handover)
      lines.push(
        `チームの直近の引き継ぎ（${handover.user}、${handover.updated_at} に保存）を表示しています。`,
      );
    if (state.next_action) lines.push(`前回の「次にやること」: ${state.next_action}`);
    if (newer)
      lines.push(
        `あなたの前回の保存より新しいチームの引き継ぎがあります（${newer.user}、${newer.updated_at} に保存）。` +
          `次にやること: ${newer.next_action || '（なし）'}`,
      );
    if (!record)
      lines.push('ストアが読み取り専用のため、セッションの開始は記録していません（読み取りはできます）。');
    return {
      project: project.project_id,
      project_name: project.name,
      user,
      started_at: at,
      current_phase: state.current_phase,
      current_task: state.current_task,
      last_completed: state.last_completed,
      blockers: state.blockers,
      recommended_docs: docs,
      notes: state.notes,
      last_summary: state.last_summary,
      next_action: state.next_action,
      ...(handover ? { handover_from: handover.user, handover_saved_at: handover.updated_at } : {}),
      ...(newer
        ? {
            newer_handover_from: newer.user,
            newer_handover_saved_at: newer.updated_at,
            newer_handover_next_action: newer.next_action,
          }
        : {}),
      message: lines.join('\n'),
    };
  });
}

export interface SaveInput {
  summary?: string | undefined;
  next_action?: string | undefined;
  blockers?: string[] | undefined;
  notes?: string | undefined;
}

/** Saves the running session's state (end: also closes it). Shared by end_session, save_session and the triggers. */
export async function saveState(engine: Engine, input: SaveInput, end: boolean) {
  const user = userOf(engine);
  return engine.backend.write(async (stores) => {
    const project = await resolveProject(engine, stores, engine.active?.project, user);
    const at = nowIso(engine);
    const own = await stores.sessions.get(project.project_id, user);
    // A user new to the project continues from the team's handover start_session showed: a field this
    // save leaves out keeps that handover's value, as it would the user's own.
    const handover = handsOver(own) ? undefined : await teamHandover(stores, project.project_id, user);
    const base = own ?? emptyState(project.project_id, user, at);
    const continued = handover ? continueFrom(base, handover) : base;
    const given: Partial<SessionState> = {
      ...(input.summary !== undefined ? { last_summary: input.summary } : {}),
      ...(input.next_action !== undefined ? { next_action: input.next_action } : {}),
      ...(input.blockers !== undefined ? { blockers: input.blockers } : {}),
      ...(input.notes !== undefined ? { notes: input.notes } : {}),
    };
    // A save with nothing new (an automatic save, an empty end_session) keeps the state's handover and
    // its time: otherwise a stale state would become the project's newest handover (SessionStore.latest).
    const news = !sameHandover(continued, { ...continued, ...given });
    const saved = news ? continued : base;
    const tasks = await stores.tracker.list(project.project_id);
    const { state } = reconcile(saved, tasks);
    const next: SessionState = {
      ...state,
      ...(news ? given : {}),
      started_at: end ? null : (saved.started_at ?? engine.active?.started_at ?? at),
      updated_at: news ? at : (own?.updated_at ?? at),
    };
    const started = engine.active?.started_at ?? saved.started_at;
    const savedTo = await stores.sessions.put(next);
    if (end) engine.active = undefined;
    return { project: project.project_id, saved_to: savedTo, started, at };
  });
}

/** ISO 8601 duration, e.g. PT1H23M45S. */
export function isoDuration(ms: number): string {
  const total = Math.max(0, Math.round(ms / 1000));
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = total % 60;
  return `PT${h ? `${h}H` : ''}${m ? `${m}M` : ''}${s || (!h && !m) ? `${s}S` : ''}`;
}

export async function endSession(engine: Engine, input: SaveInput) {
  const result = await saveState(engine, input, true);
  const ms = result.started ? Date.parse(result.at) - Date.parse(result.started) : 0;
  return {
    success: true,
    session_duration: isoDuration(ms),
    session_duration_seconds: Math.round(ms / 1000),
    saved_to: result.saved_to,
    // The state is still saved (a summary is worth keeping), but a second end_session must not look
    // like the end of a session that ran.
    message: result.started ? SAVED_MESSAGE : `${SAVED_MESSAGE}${NO_SESSION_NOTE}`,
  };
}

export async function saveSession(engine: Engine, input: SaveInput) {
  const result = await saveState(engine, input, false);
  return { success: true, saved_to: result.saved_to, message: SAVED_MESSAGE };
}

/** After a progress change the session state follows the sheet (spec update_progress step 4). */
export async function followProgress(engine: Engine, stores: Stores, project: string): Promise<void> {
  const user = userOf(engine);
  const saved = await stores.sessions.get(project, user);
  if (!saved) return;
  // Only the sheet's fields follow: the state keeps the time its user last saved it (see startSession).
  const { state } = reconcile(saved, await stores.tracker.list(project));
  await stores.sessions.put(state);
}

export function requireText(field: string, value: string | undefined): string {
  const text = value?.trim();
  if (!text) throw new ToolError('INVALID_ARGUMENT', `${field} is empty.`, { details: { field } });
  return text;
}

import { ToolError } from '@mcp-workbench/core/engine';
import { bareTaskId, deriveState, phasesOf, phaseStatus, phaseTaskOf, samePhase } from '../model/progress.js';
import type { TaskRow } from '../model/types.js';
import { oneOf, PRIORITIES, TASK_CATEGORIES, TASK_STATUSES, type TaskStatus } from '../model/vocab.js';
import type { Stores } from '../store/backend.js';
import { nowIso, resolveProject, type Engine } from './engine.js';
import { followProgress } from './sessions.js';

export async function getProgress(
  engine: Engine,
  input: {
    project?: string | undefined;
    phase?: string | undefined;
    include_completed?: boolean | undefined;
  },
) {
  return engine.backend.read(async (stores) => {
    const project = await resolveProject(engine, stores, input.project);
    const tasks = await stores.tracker.list(project.project_id);
    const derived = deriveState(tasks);
    const phases = phasesOf(tasks)
      .filter((p) => !input.phase || samePhase(input.phase, p.phase))
      .map((p) => ({
        phase: p.phase,
        status: phaseStatus(p.tasks),
        tasks: p.tasks
          .filter((t) => input.include_completed || t.status !== 'completed')
          .map((t) => ({
            task_id: t.task_id,
            name: t.name,
            status: t.status,
            blockers: t.blockers,
            completed_at: t.completed_at,
            notes: t.notes,
            priority: t.priority,
            category: t.category,
            blocked_by: t.blocked_by,
          })),
      }));
    const count = phases.reduce((n, p) => n + p.tasks.length, 0);
    return {
      success: true,
      project: project.project_id,
      current_phase: derived.current_phase,
      phases,
      message:
        tasks.length === 0
          ? '進捗はまだ登録されていません。update_progress(new_task=…) でタスクを追加してください。'
          : input.phase && phases.length === 0
            ? `フェーズ '${input.phase}' は見つかりません。`
            : `${phases.length}フェーズ、${count}タスク${input.include_completed ? '' : '（完了タスクを除く）'}。`,
    };
  });
}

/**
 * A task reference: "P4-T01" (phase 4's T01) or "T01" (the only T01 of the project). Returns the row or
 * a NOT_FOUND / ambiguity error that says what to pass instead.
 */
/** Full ids of tasks, with the phase's own label where two share one id (old rows). */
function candidates(tasks: TaskRow[]): string[] {
  const ids = tasks.map(phaseTaskOf);
  return ids.map((id, i) =>
    ids.indexOf(id) !== ids.lastIndexOf(id) ? `${tasks[i]!.phase}-${tasks[i]!.task_id}` : id,
  );
}

export function findTask(tasks: TaskRow[], ref: string): TaskRow {
  const text = ref.normalize('NFKC').trim().toLowerCase();
  // "P4-T01", "Phase 4.5-T01", "事前設計-T01", "事前設計 T01": the task's id after its phase's label.
  const prefixOf = (t: TaskRow): string | undefined => {
    const id = t.task_id.normalize('NFKC').toLowerCase();
    if (text.length <= id.length || !text.endsWith(id)) return undefined;
    return /^(.+?)\s*[-_ ]\s*$/.exec(text.slice(0, -id.length))?.[1];
  };
  const qualified = tasks.filter((t) => {
    const prefix = prefixOf(t);
    return prefix !== undefined && samePhase(prefix, t.phase);
  });
  // Rows written before phases had one key may hold "Phase 4" and "P4" tasks of one id: the exact
  // label still tells them apart.
  const exact = qualified.filter((t) => prefixOf(t) === t.phase.normalize('NFKC').trim().toLowerCase());
  const matches =
    qualified.length > 1 && exact.length === 1
      ? exact
      : qualified.length > 0
        ? qualified
        : tasks.filter((t) => t.task_id.normalize('NFKC').toLowerCase() === text);
  if (matches.length === 1) return matches[0]!;
  if (matches.length === 0) {
    throw new ToolError('NOT_FOUND', `タスク '${ref}' は進捗にありません。`, {
      hint: 'Check the id with get_progress(include_completed=true), or add it with update_progress(new_task={…}).',
      details: { task_id: ref },
    });
  }
  throw new ToolError(
    'INVALID_ARGUMENT',
    `タスクID '${ref}' は複数のフェーズにあります: ${candidates(matches).join(', ')}。`,
    {
      hint: 'Qualify it with the phase, e.g. "P4-T01".',
      details: { task_id: ref, candidates: candidates(matches) },
    },
  );
}

export interface NewTask {
  phase: string;
  task_id: string;
  name: string;
  description?: string | undefined;
  priority?: string | undefined;
  category?: string | undefined;
  blocked_by?: string[] | undefined;
}

export interface UpdateProgressInput {
  task_id: string;
  status?: string | undefined;
  blockers?: string[] | undefined;
  notes?: string | undefined;
  priority?: string | undefined;
  category?: string | undefined;
  blocked_by?: string[] | undefined;
  new_task?: NewTask | undefined;
  project?: string | undefined;
}

function checkCategory(value: string | undefined): string | undefined {
  if (value === undefined || value === '') return value;
  return oneOf('category', value, TASK_CATEGORIES);
}

/** blocked_by as stored: a task of the same phase by its id ("T01"), one of another by its full id. */
function checkDependencies(
  tasks: TaskRow[],
  ids: string[] | undefined,
  phase: string,
  self?: TaskRow,
): string[] | undefined {
  if (ids === undefined) return undefined;
  return [...new Set(ids)].map((ref) => {
    const task = findTask(tasks, ref);
    if (self && task === self) {
      throw new ToolError('INVALID_ARGUMENT', `Task ${ref} cannot depend on itself.`, {
        details: { field: 'blocked_by' },
      });
    }
    return samePhase(task.phase, phase) ? task.task_id : phaseTaskOf(task);
  });
}

export async function updateProgress(engine: Engine, input: UpdateProgressInput) {
  const status =
    input.status === undefined ? undefined : oneOf<TaskStatus>('status', input.status, TASK_STATUSES);
  const priority = input.priority === undefined ? undefined : oneOf('priority', input.priority, PRIORITIES);
  const category = checkCategory(input.category);
  return engine.backend.write(async (stores) => {
    const project = await resolveProject(engine, stores, input.project);
    const tasks = await stores.tracker.list(project.project_id);
    const at = nowIso(engine);
    let result: { task: TaskRow; updated: string[]; added: boolean };
    if (input.new_task)
      result = await addTask(stores, project.project_id, tasks, input, at, status, priority, category);
    else result = await changeTask(stores, project.project_id, tasks, input, at, status, priority, category);
    if (result.updated.length > 0) await followProgress(engine, stores, project.project_id);
    const label = phaseTaskOf(result.task);
    return {
      success: true,
      project: project.project_id,
      task_id: label,
      updated_fields: result.updated,
      message: result.added
        ? `タスク ${label}「${result.task.name}」を追加しました。`
        : result.updated.length === 0
          ? `タスク ${label} に変更はありません。`
          : `タスク ${label} を更新しました（${result.updated.join(', ')}）。`,
    };
  });
}

async function addTask(
  stores: Stores,
  project: string,
  tasks: TaskRow[],
  input: UpdateProgressInput,
  at: string,
  status: TaskStatus | undefined,
  priority: string | undefined,
  category: string | undefined,
) {
  const def = input.new_task!;
  const given = def.phase.trim();
  const name = def.name.trim();
  const taskId = bareTaskId(given, def.task_id.normalize('NFKC').trim());
  if (!given || !taskId || !name) {
    throw new ToolError(
      'INVALID_ARGUMENT',
      taskId === undefined
        ? `new_task.task_id '${def.task_id}' は別のフェーズの接頭辞を持っています（フェーズは '${given}'）。`
        : 'new_task needs phase, task_id and name.',
      { hint: 'e.g. {"phase": "Phase 4", "task_id": "T02", "name": "BTノード接続"}' },
    );
  }
  // One phase, one label: "phase 4" joins the "Phase 4" already in the sheet.
  const phase = tasks.find((t) => samePhase(t.phase, given))?.phase ?? given;
  const id = phaseTaskOf({ phase, task_id: taskId });
  const taken = tasks.find((t) => phaseTaskOf(t).toLowerCase() === id.toLowerCase());
  if (taken) {
    // Checked here, before anything is written, for every backend: the id must reach one task.
    throw new ToolError('ALREADY_EXISTS', `タスク ${id} は既にあります（${taken.phase}: ${taken.name}）。`, {
      hint: 'Update it with update_progress(task_id=…) instead, or choose another task_id.',
      details: { task_id: id },
    });
  }
  const row: TaskRow = {
    phase,
    task_id: taskId,
    name,
    description: def.description ?? '',
    status: status ?? 'not_started',
    blockers: input.blockers ?? [],
    completed_at: status === 'completed' ? at : null,
    notes: input.notes ?? def.description ?? '',
    priority: oneOf('priority', def.priority ?? priority ?? 'medium', PRIORITIES),
    category: checkCategory(def.category) ?? category ?? '',
    blocked_by: checkDependencies(tasks, def.blocked_by ?? input.blocked_by, phase) ?? [],
    updated_at: at,
  };
  await stores.tracker.add(project, row);
  return { task: row, updated: ['new_task'], added: true };
}

async function changeTask(
  stores: Stores,
  project: string,
  tasks: TaskRow[],
  input: UpdateProgressInput,
  at: string,
  status: TaskStatus | undefined,
  priority: string | undefined,
  category: string | undefined,
) {
  const task = findTask(tasks, input.task_id);
  const next: TaskRow = { ...task };
  if (status !== undefined) {
    next.status = status;
    if (status === 'completed' && task.status !== 'completed') next.completed_at = at;
    if (status !== 'completed') next.completed_at = null;
  }
  if (input.blockers !== undefined) next.blockers = input.blockers.map((b) => b.trim()).filter(Boolean);
  if (input.notes !== undefined) next.notes = input.notes;
  if (priority !== undefined) next.priority = priority as TaskRow['priority'];
  if (category !== undefined) next.category = category;
  const deps = checkDependencies(tasks, input.blocked_by, task.phase, task);
  if (deps !== undefined) next.blocked_by = deps;
  const updated = (
    ['status', 'blockers', 'notes', 'priority', 'category', 'blocked_by', 'completed_at'] as const
  ).filter((key) => JSON.stringify(next[key]) !== JSON.stringify(task[key]));
  if (updated.length > 0) {
    next.updated_at = at;
    await stores.tracker.update(project, next);
  }
  return { task: next, updated, added: false };
}

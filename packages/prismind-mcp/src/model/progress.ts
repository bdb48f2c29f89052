import type { TaskRow } from './types.js';
import type { PhaseStatus } from './vocab.js';

const PRIORITY_ORDER = { high: 0, medium: 1, low: 2 } as const;

/** "Phase 4" → 4, "P4" → 4, "フェーズ4" → 4; undefined when the phase has no number. */
export function phaseNumber(phase: string): number | undefined {
  const key = phaseKey(phase);
  return /^P\d/.test(key) ? Math.trunc(Number(key.slice(1))) : undefined;
}

/** A numbered phase label: "Phase 4", "phase 4", "Phase4", "4", "P4", "フェーズ4", "Phase 04", "Phase 4.5". */
const NUMBERED = /^(?:phase|フェーズ|p)?\s*(\d+(?:\.\d+)?)$/i;

/**
 * The one key of a phase label, used for task ids, grouping and filters alike: a numbered phase is
 * "P<n>" ("Phase 04" → "P4", "Phase 4.5" → "P4.5"), a named one ("事前設計") is its label with
 * whitespace collapsed. Labels with the same key are the same phase.
 */
export function phaseKey(phase: string): string {
  const text = phase.normalize('NFKC').trim().replace(/\s+/g, ' ');
  const match = NUMBERED.exec(text);
  return match ? `P${String(Number(match[1]))}` : text;
}

/** Whether two phase labels name one phase. */
export function samePhase(a: string, b: string): boolean {
  return phaseKey(a).toLowerCase() === phaseKey(b).toLowerCase();
}

/** The spec's phase_task form and a task's full id: "P4-T01", "P4.5-T01", "事前設計-T01". */
export function phaseTaskOf(task: Pick<TaskRow, 'phase' | 'task_id'>): string {
  const key = phaseKey(task.phase);
  return key ? `${key}-${task.task_id}` : task.task_id;
}

/**
 * A task id given with its own phase's prefix ("P4-T08" for Phase 4) without it, so it is not prefixed
 * twice; undefined when it carries another phase's prefix.
 */
export function bareTaskId(phase: string, taskId: string): string | undefined {
  const match = /^(.+?)\s*[-_ ]\s*(.+)$/.exec(taskId);
  if (!match) return taskId;
  if (samePhase(match[1]!, phase)) return match[2]!;
  // "P3-T08" for Phase 4 is a mistake; "UI-01" in a named phase is an id.
  return /^P\d/.test(phaseKey(match[1]!)) ? undefined : taskId;
}

/**
 * A task's blocked_by as full ids ("P2-T01"). A same-phase dependency is stored by its bare id ("T01"),
 * which names the task of this task's phase, never the T01 of another phase; one of another phase is
 * stored by its full id. `fullIds` (lower case) are the sheet's tasks, to tell the two apart.
 */
export function dependencyIds(task: Pick<TaskRow, 'phase' | 'blocked_by'>, fullIds: Set<string>): string[] {
  return task.blocked_by.map((id) => {
    const own = phaseTaskOf({ phase: task.phase, task_id: id });
    return fullIds.has(own.toLowerCase()) ? own : id;
  });
}

export function taskLabel(task: Pick<TaskRow, 'task_id' | 'name'>): string {
  return `${task.task_id}: ${task.name}`;
}

export function phaseStatus(tasks: TaskRow[]): PhaseStatus {
  if (tasks.length > 0 && tasks.every((t) => t.status === 'completed')) return 'completed';
  if (tasks.some((t) => t.status !== 'not_started')) return 'in_progress';
  return 'not_started';
}

/**
 * Phases in sheet order (first appearance), grouped by their key: "Phase 4" and "P4" are one phase,
 * shown by the label it was first written with.
 */
export function phasesOf(tasks: TaskRow[]): { phase: string; tasks: TaskRow[] }[] {
  const phases = new Map<string, { phase: string; tasks: TaskRow[] }>();
  for (const task of tasks) {
    const key = phaseKey(task.phase).toLowerCase();
    const group = phases.get(key) ?? { phase: task.phase, tasks: [] };
    group.tasks.push(task);
    phases.set(key, group);
  }
  return [...phases.values()];
}

export interface DerivedState {
  current_phase: string;
  current_task: string;
  last_completed: string;
  /** Blockers of blocked tasks, as "T01: reason". */
  blockers: string[];
  current: TaskRow | undefined;
}

/**
 * What the progress sheet says the session is at (the sheet is the truth, spec step 5): the current task
 * is the first task in progress (higher priority first), else the first task that can start (not started,
 * every blocked_by task completed), else the first blocked one; the current phase is that task's phase;
 * last_completed is the task completed last.
 */
export function deriveState(tasks: TaskRow[]): DerivedState {
  // Full ids only: a bare "T01" would also count Phase 1's T01 as done for a task of Phase 2.
  const fullIds = new Set(tasks.map((t) => phaseTaskOf(t).toLowerCase()));
  const done = new Set(
    tasks.filter((t) => t.status === 'completed').map((t) => phaseTaskOf(t).toLowerCase()),
  );
  const ranked = (list: TaskRow[]) =>
    [...list].sort((a, b) => PRIORITY_ORDER[a.priority] - PRIORITY_ORDER[b.priority]);
  const inProgress = ranked(tasks.filter((t) => t.status === 'in_progress'));
  const ready = ranked(
    tasks.filter(
      (t) =>
        t.status === 'not_started' && dependencyIds(t, fullIds).every((id) => done.has(id.toLowerCase())),
    ),
  );
  const blocked = tasks.filter((t) => t.status === 'blocked');
  // Within a priority, sheet order: phases first to last.
  const current = inProgress[0] ?? ready[0] ?? blocked[0];
  const completed = tasks
    .filter((t) => t.status === 'completed')
    .sort((a, b) => (b.completed_at ?? '').localeCompare(a.completed_at ?? ''));
  const last = completed[0];
  // The phase as its group shows it (the label it was first written with).
  const labels = new Map(phasesOf(tasks).map((g) => [phaseKey(g.phase).toLowerCase(), g.phase]));
  const phase = current?.phase ?? last?.phase;
  return {
    current,
    current_phase: phase === undefined ? '' : (labels.get(phaseKey(phase).toLowerCase()) ?? phase),
    current_task: current ? taskLabel(current) : '',
    last_completed: last ? `${phaseTaskOf(last)}: ${last.name}` : '',
    blockers: blocked.flatMap((t) =>
      t.blockers.length > 0 ? t.blockers.map((b) => `${t.task_id}: ${b}`) : [`${t.task_id}: ${t.name}`],
    ),
  };
}

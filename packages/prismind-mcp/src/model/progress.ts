import type { TaskRow } from './types.js';
import type { PhaseStatus } from './vocab.js';

const PRIORITY_ORDER = { high: 0, medium: 1, low: 2 } as const;

/** "Phase 4" → 4, "P4" → 4, "フェーズ4" → 4; undefined when the phase has no number. */
export function phaseNumber(phase: string): number | undefined {
  const match = /(\d+)/.exec(phase.normalize('NFKC'));
  return match ? Number(match[1]) : undefined;
}

/** The spec's phase_task form: "P4-T01". */
export function phaseTaskOf(task: Pick<TaskRow, 'phase' | 'task_id'>): string {
  const n = phaseNumber(task.phase);
  return n === undefined ? task.task_id : `P${n}-${task.task_id}`;
}

export function taskLabel(task: Pick<TaskRow, 'task_id' | 'name'>): string {
  return `${task.task_id}: ${task.name}`;
}

export function phaseStatus(tasks: TaskRow[]): PhaseStatus {
  if (tasks.length > 0 && tasks.every((t) => t.status === 'completed')) return 'completed';
  if (tasks.some((t) => t.status !== 'not_started')) return 'in_progress';
  return 'not_started';
}

/** Phases in sheet order (first appearance). */
export function phasesOf(tasks: TaskRow[]): { phase: string; tasks: TaskRow[] }[] {
  const phases = new Map<string, TaskRow[]>();
  for (const task of tasks) {
    const list = phases.get(task.phase) ?? [];
    list.push(task);
    phases.set(task.phase, list);
  }
  return [...phases].map(([phase, list]) => ({ phase, tasks: list }));
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
  const done = new Set(
    tasks
      .filter((t) => t.status === 'completed')
      .flatMap((t) => [t.task_id.toLowerCase(), phaseTaskOf(t).toLowerCase()]),
  );
  const ranked = (list: TaskRow[]) =>
    [...list].sort((a, b) => PRIORITY_ORDER[a.priority] - PRIORITY_ORDER[b.priority]);
  const inProgress = ranked(tasks.filter((t) => t.status === 'in_progress'));
  const ready = ranked(
    tasks.filter((t) => t.status === 'not_started' && t.blocked_by.every((id) => done.has(id.toLowerCase()))),
  );
  const blocked = tasks.filter((t) => t.status === 'blocked');
  // Within a priority, sheet order: phases first to last.
  const current = inProgress[0] ?? ready[0] ?? blocked[0];
  const completed = tasks
    .filter((t) => t.status === 'completed')
    .sort((a, b) => (b.completed_at ?? '').localeCompare(a.completed_at ?? ''));
  const last = completed[0];
  return {
    current,
    current_phase: current?.phase ?? last?.phase ?? '',
    current_task: current ? taskLabel(current) : '',
    last_completed: last ? `${phaseTaskOf(last)}: ${last.name}` : '',
    blockers: blocked.flatMap((t) =>
      t.blockers.length > 0 ? t.blockers.map((b) => `${t.task_id}: ${b}`) : [`${t.task_id}: ${t.name}`],
    ),
  };
}

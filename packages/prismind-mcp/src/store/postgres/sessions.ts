import type { SessionState } from '../../model/types.js';
import type { SessionStore } from '../backend.js';
import {
  assertWritable,
  forUpdate,
  keyOf,
  lockProject,
  query,
  queryOne,
  send,
  type PgContext,
} from './context.js';

interface SessionRow extends Omit<SessionState, 'user'> {
  user_name: string;
}

const COLUMNS = `project, user_name, current_phase, current_task, last_completed, blockers, notes, last_summary,
  next_action, started_at, updated_at`;

function toState(row: SessionRow): SessionState {
  return {
    project: row.project,
    user: row.user_name,
    current_phase: row.current_phase,
    current_task: row.current_task,
    last_completed: row.last_completed,
    blockers: row.blockers,
    notes: row.notes,
    last_summary: row.last_summary,
    next_action: row.next_action,
    updated_at: row.updated_at,
    started_at: row.started_at,
  };
}

/** Session state per project and user: one row each, so users of a team never share a state. */
export class PgSessions implements SessionStore {
  constructor(private readonly ctx: PgContext) {}

  async get(project: string, user: string): Promise<SessionState | undefined> {
    await lockProject(this.ctx, project);
    const row = await queryOne<SessionRow>(
      this.ctx,
      `SELECT ${COLUMNS} FROM ${this.ctx.t.sessions} WHERE project_key = $1 AND user_name = $2 ${forUpdate(this.ctx)}`,
      [keyOf(project), user],
    );
    return row ? toState(row) : undefined;
  }

  async latest(project: string): Promise<SessionState | undefined> {
    const row = await queryOne<SessionRow>(
      this.ctx,
      `SELECT ${COLUMNS} FROM ${this.ctx.t.sessions} WHERE project_key = $1
       ORDER BY (last_summary <> '' OR next_action <> '' OR notes <> '') DESC, updated_at DESC LIMIT 1`,
      [keyOf(project)],
    );
    return row ? toState(row) : undefined;
  }

  async list(project: string): Promise<SessionState[]> {
    const rows = await query<SessionRow>(
      this.ctx,
      `SELECT ${COLUMNS} FROM ${this.ctx.t.sessions} WHERE project_key = $1 ORDER BY user_name`,
      [keyOf(project)],
    );
    return rows.map(toState);
  }

  async put(state: SessionState): Promise<string[]> {
    assertWritable(this.ctx);
    await lockProject(this.ctx, state.project);
    // Sent without waiting (nothing reads its answer): a failure fails the transaction at its next
    // statement or at COMMIT.
    await send(
      this.ctx,
      `INSERT INTO ${this.ctx.t.sessions} (project_key, ${COLUMNS})
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)
       ON CONFLICT (project_key, user_name) DO UPDATE SET project = excluded.project,
         current_phase = excluded.current_phase, current_task = excluded.current_task,
         last_completed = excluded.last_completed, blockers = excluded.blockers, notes = excluded.notes,
         last_summary = excluded.last_summary, next_action = excluded.next_action,
         started_at = excluded.started_at, updated_at = excluded.updated_at`,
      [
        keyOf(state.project),
        state.project,
        state.user,
        state.current_phase,
        state.current_task,
        state.last_completed,
        JSON.stringify(state.blockers),
        state.notes,
        state.last_summary,
        state.next_action,
        state.started_at,
        state.updated_at,
      ],
    );
    return [`${this.ctx.display} (sessions)`];
  }
}

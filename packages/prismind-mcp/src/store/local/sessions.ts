import path from 'node:path';
import type { SessionState } from '../../model/types.js';
import type { SessionStore } from '../backend.js';
import {
  assertWritable,
  DB_FILE,
  folderOf,
  json,
  markDirty,
  PROJECTS_DIR,
  type LocalContext,
} from './context.js';

interface SessionRow extends Omit<SessionState, 'blockers'> {
  blockers: string;
}

function toState(row: SessionRow): SessionState {
  return { ...row, blockers: json<string[]>(row.blockers, []) };
}

export class LocalSessions implements SessionStore {
  constructor(private readonly ctx: LocalContext) {}

  async get(project: string, user: string): Promise<SessionState | undefined> {
    const row = this.ctx.db
      .prepare('SELECT * FROM sessions WHERE project = ? AND user = ?')
      .get(project, user) as SessionRow | undefined;
    return row ? toState(row) : undefined;
  }

  async latest(project: string): Promise<SessionState | undefined> {
    const row = this.ctx.db
      .prepare(
        `SELECT * FROM sessions WHERE project = ?
         ORDER BY (last_summary <> '' OR next_action <> '' OR notes <> '') DESC, updated_at DESC LIMIT 1`,
      )
      .get(project) as SessionRow | undefined;
    return row ? toState(row) : undefined;
  }

  async list(project: string): Promise<SessionState[]> {
    const rows = this.ctx.db
      .prepare('SELECT * FROM sessions WHERE project = ? ORDER BY user')
      .all(project) as SessionRow[];
    return rows.map(toState);
  }

  async put(state: SessionState): Promise<string[]> {
    assertWritable(this.ctx);
    this.ctx.db
      .prepare(
        `INSERT INTO sessions (project, user, current_phase, current_task, last_completed, blockers, notes,
           last_summary, next_action, started_at, updated_at)
         VALUES (@project, @user, @current_phase, @current_task, @last_completed, @blockers, @notes,
           @last_summary, @next_action, @started_at, @updated_at)
         ON CONFLICT (project, user) DO UPDATE SET current_phase = excluded.current_phase,
           current_task = excluded.current_task, last_completed = excluded.last_completed,
           blockers = excluded.blockers, notes = excluded.notes, last_summary = excluded.last_summary,
           next_action = excluded.next_action, started_at = excluded.started_at, updated_at = excluded.updated_at`,
      )
      .run({ ...state, blockers: JSON.stringify(state.blockers) });
    markDirty(this.ctx, state.project, 'summary');
    return [DB_FILE, path.posix.join(PROJECTS_DIR, folderOf(this.ctx, state.project), 'サマリ.md')];
  }
}

import { ToolError } from '@mcp-workbench/core/engine';
import type { ProjectConfig, TaskRow } from '../../model/types.js';
import type { Tracker } from '../backend.js';
import { assertWritable, forUpdate, keyOf, lockProject, query, type PgContext } from './context.js';

const COLUMNS = `phase, task_id, name, description, status, blockers, completed_at, notes, priority, category,
  blocked_by, updated_at`;

const values = (task: TaskRow) => [
  task.phase,
  task.task_id,
  task.name,
  task.description,
  task.status,
  JSON.stringify(task.blockers),
  task.completed_at,
  task.notes,
  task.priority,
  task.category,
  JSON.stringify(task.blocked_by),
  task.updated_at,
];

function alreadyExists(task: TaskRow): ToolError {
  return new ToolError('ALREADY_EXISTS', `Task ${task.task_id} already exists in ${task.phase}.`, {
    hint: 'Update it with update_progress(task_id=…) instead, or choose another task_id.',
  });
}

/** The progress sheet as a table; rows keep the order they were added in (the sheet's row order). */
export class PgTracker implements Tracker {
  constructor(private readonly ctx: PgContext) {}

  /** Inside a write the rows are locked (FOR UPDATE) until COMMIT: a read-modify-write loses nothing. */
  async list(project: string): Promise<TaskRow[]> {
    await lockProject(this.ctx, project);
    return query<TaskRow>(
      this.ctx,
      `SELECT ${COLUMNS} FROM ${this.ctx.t.tasks} WHERE project_key = $1 ORDER BY id ${forUpdate(this.ctx)}`,
      [keyOf(project)],
    );
  }

  async add(project: string, task: TaskRow): Promise<void> {
    assertWritable(this.ctx);
    await lockProject(this.ctx, project);
    // ON CONFLICT instead of catching 23505: one round trip, and no savepoint per task.
    const inserted = await query(
      this.ctx,
      `INSERT INTO ${this.ctx.t.tasks} (project_key, ${COLUMNS})
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13) ON CONFLICT DO NOTHING RETURNING 1`,
      [keyOf(project), ...values(task)],
    );
    if (inserted.length === 0) throw alreadyExists(task);
  }

  async update(project: string, task: TaskRow): Promise<void> {
    assertWritable(this.ctx);
    await lockProject(this.ctx, project);
    const rows = await query(
      this.ctx,
      `UPDATE ${this.ctx.t.tasks} SET name = $4, description = $5, status = $6, blockers = $7,
         completed_at = $8, notes = $9, priority = $10, category = $11, blocked_by = $12, updated_at = $13,
         version = version + 1
       WHERE project_key = $1 AND phase = $2 AND lower(task_id) = lower($3) RETURNING id`,
      [keyOf(project), ...values(task)],
    );
    if (rows.length === 0) throw new ToolError('NOT_FOUND', `Task ${task.task_id} of ${task.phase} is gone.`);
  }

  /** The three views are served from the tables (MCP resources); the first call "creates" them. */
  async createSheets(project: ProjectConfig): Promise<string[]> {
    assertWritable(this.ctx);
    const rows = await query(
      this.ctx,
      `UPDATE ${this.ctx.t.projects} SET views_created = true WHERE project_key = $1 AND NOT views_created
       RETURNING project_key`,
      [keyOf(project.project_id)],
    );
    return rows.length > 0 ? [project.sheets.summary, project.sheets.progress, project.sheets.catalog] : [];
  }
}

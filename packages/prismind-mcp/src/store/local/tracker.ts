import { ToolError } from '@mcp-workbench/core/engine';
import type { ProjectConfig, TaskRow } from '../../model/types.js';
import type { Tracker } from '../backend.js';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { assertWritable, folderOf, json, markDirty, projectDir, type LocalContext } from './context.js';

interface Row extends Omit<TaskRow, 'blockers' | 'blocked_by'> {
  blockers: string;
  blocked_by: string;
}

function toTask(row: Row): TaskRow {
  return {
    phase: row.phase,
    task_id: row.task_id,
    name: row.name,
    status: row.status,
    blockers: json<string[]>(row.blockers, []),
    completed_at: row.completed_at,
    notes: row.notes,
    priority: row.priority,
    category: row.category,
    blocked_by: json<string[]>(row.blocked_by, []),
    description: row.description,
    updated_at: row.updated_at,
  };
}

function params(project: string, task: TaskRow) {
  return {
    ...task,
    project,
    blockers: JSON.stringify(task.blockers),
    blocked_by: JSON.stringify(task.blocked_by),
  };
}

/** The progress sheet as a table; rows keep the order they were added in (the sheet's row order). */
export class LocalTracker implements Tracker {
  constructor(private readonly ctx: LocalContext) {}

  async list(project: string): Promise<TaskRow[]> {
    const rows = this.ctx.db
      .prepare('SELECT * FROM tasks WHERE project = ? ORDER BY id')
      .all(project) as Row[];
    return rows.map(toTask);
  }

  async add(project: string, task: TaskRow): Promise<void> {
    assertWritable(this.ctx);
    const exists = this.ctx.db
      .prepare('SELECT 1 FROM tasks WHERE project = ? AND phase = ? AND task_id = ?')
      .get(project, task.phase, task.task_id);
    if (exists) {
      throw new ToolError('ALREADY_EXISTS', `Task ${task.task_id} already exists in ${task.phase}.`, {
        hint: 'Update it with update_progress(task_id=…) instead, or choose another task_id.',
      });
    }
    this.ctx.db
      .prepare(
        `INSERT INTO tasks (project, phase, task_id, name, description, status, blockers, completed_at, notes,
           priority, category, blocked_by, updated_at)
         VALUES (@project, @phase, @task_id, @name, @description, @status, @blockers, @completed_at, @notes,
           @priority, @category, @blocked_by, @updated_at)`,
      )
      .run(params(project, task));
    markDirty(this.ctx, project, 'progress', 'summary');
  }

  /** The views are files: they are written with this transaction (see views.ts). */
  async createSheets(project: ProjectConfig): Promise<string[]> {
    assertWritable(this.ctx);
    markDirty(this.ctx, project.project_id, 'progress', 'catalog', 'summary');
    const folder = projectDir(this.ctx, folderOf(this.ctx, project.project_id));
    const files = [
      [project.sheets.summary, 'サマリ.md'],
      [project.sheets.progress, '進捗.md'],
      [project.sheets.catalog, '目録.md'],
    ] as const;
    return files.filter(([, file]) => !existsSync(path.join(folder, file))).map(([sheet]) => sheet);
  }

  async update(project: string, task: TaskRow): Promise<void> {
    assertWritable(this.ctx);
    const result = this.ctx.db
      .prepare(
        `UPDATE tasks SET name = @name, description = @description, status = @status, blockers = @blockers,
           completed_at = @completed_at, notes = @notes, priority = @priority, category = @category,
           blocked_by = @blocked_by, updated_at = @updated_at
         WHERE project = @project AND phase = @phase AND task_id = @task_id`,
      )
      .run(params(project, task));
    if (result.changes === 0)
      throw new ToolError('NOT_FOUND', `Task ${task.task_id} of ${task.phase} is gone.`);
    markDirty(this.ctx, project, 'progress', 'summary');
  }
}

import path from 'node:path';
import { ToolError } from '@mcp-workbench/core/engine';
import type { CurrentProject, ProjectConfig } from '../../model/types.js';
import type { ProjectRegistry } from '../backend.js';
import { assertWritable, json, PROJECTS_DIR, type LocalContext } from './context.js';
import { safeName } from '../../model/names.js';

interface ProjectRow {
  project_id: string;
  name: string;
  description: string;
  folder: string;
  config: string;
  created_at: string;
  updated_at: string;
}

function toConfig(row: ProjectRow): ProjectConfig {
  const rest = json<Partial<ProjectConfig>>(row.config, {});
  return {
    ...(rest as ProjectConfig),
    project_id: row.project_id,
    name: row.name,
    description: row.description,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

function storedConfig(config: ProjectConfig): string {
  const { project_id: _id, name: _n, description: _d, created_at: _c, updated_at: _u, ...rest } = config;
  return JSON.stringify(rest);
}

export class LocalProjects implements ProjectRegistry {
  constructor(private readonly ctx: LocalContext) {}

  async get(projectId: string): Promise<ProjectConfig | undefined> {
    const row = this.ctx.db
      .prepare('SELECT * FROM projects WHERE project_id = ? AND deleted_at IS NULL')
      .get(projectId) as ProjectRow | undefined;
    return row ? toConfig(row) : undefined;
  }

  async list(): Promise<ProjectConfig[]> {
    const rows = this.ctx.db
      .prepare('SELECT * FROM projects WHERE deleted_at IS NULL ORDER BY updated_at DESC')
      .all() as ProjectRow[];
    return rows.map(toConfig);
  }

  async create(config: ProjectConfig): Promise<void> {
    assertWritable(this.ctx);
    if (await this.get(config.project_id)) {
      throw new ToolError('ALREADY_EXISTS', `Project "${config.project_id}" already exists.`);
    }
    const deleted = this.ctx.db
      .prepare('SELECT folder FROM projects WHERE project_id = ?')
      .get(config.project_id) as { folder: string } | undefined;
    if (deleted) {
      // Set up again after delete_project: the project gets its config back and finds its data.
      this.ctx.db
        .prepare(
          `UPDATE projects SET project_id = ?, name = ?, description = ?, config = ?, created_at = ?, updated_at = ?,
           deleted_at = NULL WHERE project_id = ?`,
        )
        .run(
          config.project_id,
          config.name,
          config.description,
          storedConfig(config),
          config.created_at,
          config.updated_at,
          config.project_id,
        );
      return;
    }
    this.ctx.db
      .prepare(
        `INSERT INTO projects (project_id, name, description, folder, config, created_at, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(
        config.project_id,
        config.name,
        config.description,
        this.freeFolder(config),
        storedConfig(config),
        config.created_at,
        config.updated_at,
      );
  }

  /**
   * The project's folder name: its display name, or `<name> (<id>)` when another project (deleted ones
   * too: their data stays) has that folder.
   */
  private freeFolder(config: ProjectConfig): string {
    const base = safeName(config.name, config.project_id);
    const taken = (folder: string) =>
      this.ctx.db
        .prepare('SELECT 1 FROM projects WHERE folder = ? COLLATE NOCASE AND project_id <> ?')
        .get(folder, config.project_id) !== undefined;
    return taken(base) ? safeName(`${config.name} (${config.project_id})`, config.project_id) : base;
  }

  async update(config: ProjectConfig): Promise<void> {
    assertWritable(this.ctx);
    this.ctx.db
      .prepare(
        'UPDATE projects SET name = ?, description = ?, config = ?, updated_at = ? WHERE project_id = ?',
      )
      .run(config.name, config.description, storedConfig(config), config.updated_at, config.project_id);
  }

  async remove(projectId: string): Promise<void> {
    assertWritable(this.ctx);
    this.ctx.db
      .prepare('UPDATE projects SET deleted_at = ? WHERE project_id = ?')
      .run(new Date().toISOString(), projectId);
    this.ctx.db.prepare('DELETE FROM current_project WHERE project_id = ?').run(projectId);
  }

  async getCurrent(user: string): Promise<CurrentProject | undefined> {
    const row = this.ctx.db
      .prepare(
        `SELECT c.project_id AS project_id, c.switched_at AS switched_at FROM current_project c
         JOIN projects p ON p.project_id = c.project_id AND p.deleted_at IS NULL WHERE c.user = ?`,
      )
      .get(user) as { project_id: string; switched_at: string } | undefined;
    return row;
  }

  async setCurrent(user: string, current: CurrentProject): Promise<void> {
    assertWritable(this.ctx);
    this.ctx.db
      .prepare(
        `INSERT INTO current_project (user, project_id, switched_at) VALUES (?, ?, ?)
         ON CONFLICT (user) DO UPDATE SET project_id = excluded.project_id, switched_at = excluded.switched_at`,
      )
      .run(user, current.project_id, current.switched_at);
  }

  dataLocation(config: ProjectConfig): string {
    const row = this.ctx.db
      .prepare('SELECT folder FROM projects WHERE project_id = ?')
      .get(config.project_id) as { folder: string } | undefined;
    return path.join(this.ctx.home, PROJECTS_DIR, row?.folder ?? safeName(config.name, config.project_id));
  }
}

import { ToolError } from '@mcp-workbench/core/engine';
import type { CurrentProject, ProjectConfig } from '../../model/types.js';
import type { ProjectRegistry } from '../backend.js';
import { assertWritable, keyOf, lockProject, query, queryOne, send, type PgContext } from './context.js';

/** Named, not `*`: a prepared `SELECT *` fails once another server's migration adds a column. */
const COLUMNS = 'project_id, name, description, config, created_at, updated_at';

interface ProjectRow {
  project_id: string;
  name: string;
  description: string;
  config: Partial<ProjectConfig>;
  created_at: string;
  updated_at: string;
}

function toConfig(row: ProjectRow): ProjectConfig {
  return {
    ...(row.config as ProjectConfig),
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

export class PgProjects implements ProjectRegistry {
  constructor(private readonly ctx: PgContext) {}

  async get(projectId: string): Promise<ProjectConfig | undefined> {
    // A write that looks a project up is about to work on it: it takes the project's lock first.
    await lockProject(this.ctx, projectId);
    const row = await queryOne<ProjectRow>(
      this.ctx,
      `SELECT ${COLUMNS} FROM ${this.ctx.t.projects} WHERE project_key = $1 AND deleted_at IS NULL`,
      [keyOf(projectId)],
    );
    return row ? toConfig(row) : undefined;
  }

  async list(): Promise<ProjectConfig[]> {
    const rows = await query<ProjectRow>(
      this.ctx,
      `SELECT ${COLUMNS} FROM ${this.ctx.t.projects} WHERE deleted_at IS NULL ORDER BY updated_at DESC`,
    );
    return rows.map(toConfig);
  }

  async create(config: ProjectConfig): Promise<void> {
    assertWritable(this.ctx);
    await lockProject(this.ctx, config.project_id);
    const values = [
      keyOf(config.project_id),
      config.project_id,
      config.name,
      config.description,
      storedConfig(config),
      config.created_at,
      config.updated_at,
    ];
    // A deleted project's row comes back (its data stayed); a live one is ALREADY_EXISTS.
    const rows = await query(
      this.ctx,
      `INSERT INTO ${this.ctx.t.projects} (project_key, project_id, name, description, config, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7)
       ON CONFLICT (project_key) DO UPDATE SET project_id = excluded.project_id, name = excluded.name,
         description = excluded.description, config = excluded.config, created_at = excluded.created_at,
         updated_at = excluded.updated_at, deleted_at = NULL
       WHERE ${this.ctx.t.projects}.deleted_at IS NOT NULL
       RETURNING project_key`,
      values,
    );
    if (rows.length === 0) {
      throw new ToolError('ALREADY_EXISTS', `Project "${config.project_id}" already exists.`);
    }
  }

  async update(config: ProjectConfig): Promise<void> {
    assertWritable(this.ctx);
    await lockProject(this.ctx, config.project_id);
    await query(
      this.ctx,
      `UPDATE ${this.ctx.t.projects} SET name = $2, description = $3, config = $4, updated_at = $5
       WHERE project_key = $1`,
      [keyOf(config.project_id), config.name, config.description, storedConfig(config), config.updated_at],
    );
  }

  async remove(projectId: string): Promise<void> {
    assertWritable(this.ctx);
    await lockProject(this.ctx, projectId);
    await query(this.ctx, `UPDATE ${this.ctx.t.projects} SET deleted_at = $2 WHERE project_key = $1`, [
      keyOf(projectId),
      new Date().toISOString(),
    ]);
    await query(this.ctx, `DELETE FROM ${this.ctx.t.current} WHERE lower(project_id) = $1`, [
      keyOf(projectId),
    ]);
  }

  async getCurrent(user: string): Promise<CurrentProject | undefined> {
    return queryOne<{ project_id: string; switched_at: string }>(
      this.ctx,
      `SELECT p.project_id, c.switched_at FROM ${this.ctx.t.current} c
       JOIN ${this.ctx.t.projects} p ON p.project_key = lower(c.project_id) AND p.deleted_at IS NULL
       WHERE c.user_name = $1`,
      [user],
    );
  }

  async setCurrent(user: string, current: CurrentProject): Promise<void> {
    assertWritable(this.ctx);
    // Sent without waiting, as sessions.put.
    await send(
      this.ctx,
      `INSERT INTO ${this.ctx.t.current} (user_name, project_id, switched_at) VALUES ($1, $2, $3)
       ON CONFLICT (user_name) DO UPDATE SET project_id = excluded.project_id, switched_at = excluded.switched_at`,
      [user, current.project_id, current.switched_at],
    );
  }

  dataLocation(config: ProjectConfig): string {
    return `${this.ctx.display} (project ${config.project_id})`;
  }
}

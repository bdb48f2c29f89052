import { randomBytes } from 'node:crypto';
import { ToolError, type Logger } from '@mcp-workbench/core/engine';
import { LEGACY_USER, type PrismindConfig } from '../config/config.js';
import type { ProjectConfig } from '../model/types.js';
import type { Backend, Stores } from '../store/backend.js';

/** The session this server process is running (start_session … end_session). */
export interface ActiveSession {
  project: string;
  user: string;
  started_at: string;
}

/** Everything the operations need; one per server process (no globals: two servers never mix). */
export interface Engine {
  backend: Backend;
  config: PrismindConfig;
  logger: Logger;
  now: () => Date;
  active: ActiveSession | undefined;
  /**
   * doc_id → the content_hash of the body this server last showed its agent (get_document, create and
   * update answers): a replace without expected_hash is checked against it (updateDocument).
   */
  served: Map<string, string>;
}

export function nowIso(engine: Engine): string {
  return engine.now().toISOString();
}

/** Time-ordered, unguessable ids: `doc-lx3k9a2f7c1e…`, `kn-…`. */
export function newId(prefix: string): string {
  return `${prefix}-${Date.now().toString(36)}${randomBytes(5).toString('hex')}`;
}

const PROJECT_ID = /^[A-Za-z0-9]{1,64}$/;

export function checkProjectId(project: string): string {
  if (!PROJECT_ID.test(project)) {
    throw new ToolError(
      'INVALID_ARGUMENT',
      `プロジェクトID '${project}' は使えません。英数字 (A–Z, a–z, 0–9) 1〜64文字で指定してください。`,
      {
        hint: 'Use letters and digits only, e.g. "trapxtrap" or "NewGame2".',
        details: { field: 'project' },
      },
    );
  }
  return project;
}

export function userOf(engine: Engine, user?: string): string {
  const chosen = user?.trim() || engine.active?.user || engine.config.session.default_user;
  if (chosen.length > 200) throw new ToolError('INVALID_ARGUMENT', 'user is longer than 200 characters.');
  return chosen;
}

export function projectNotFound(project: string): ToolError {
  return new ToolError('NOT_FOUND', `プロジェクト '${project}' は登録されていません。`, {
    hint: 'Call list_projects to see the registered projects, or setup_project to create this one.',
    details: { project },
  });
}

/**
 * The project a call is about: the one named, else the active session's, else the user's current
 * project. No project at all is NO_CURRENT_PROJECT, with the next step.
 */
export async function resolveProject(
  engine: Engine,
  stores: Stores,
  project: string | undefined,
  user?: string,
): Promise<ProjectConfig> {
  if (project !== undefined && project !== '') {
    checkProjectId(project);
    const config = await stores.projects.get(project);
    if (!config) throw projectNotFound(project);
    return config;
  }
  // The running session's project, else the user's current project, else this server's user's, else the
  // one chosen before users had identities of their own (LEGACY_USER: a store from an older version).
  const current =
    engine.active?.project ??
    (await stores.projects.getCurrent(userOf(engine, user)))?.project_id ??
    (await stores.projects.getCurrent(engine.config.session.default_user))?.project_id ??
    (await stores.projects.getCurrent(LEGACY_USER))?.project_id;
  if (current) {
    const config = await stores.projects.get(current);
    if (config) return config;
  }
  throw noCurrentProject(await stores.projects.list());
}

/** How many projects a NO_CURRENT_PROJECT hint names; with more, it points at list_projects only. */
const PROJECTS_NAMED = 5;

/**
 * No project given and none current. A new conversation's agent knows no project id: the hint names
 * the registered projects when they are few, so the next call can pass one.
 */
function noCurrentProject(projects: ProjectConfig[]): ToolError {
  const named = projects.map((p) => ({ project_id: p.project_id, name: p.name }));
  const list = named.map((p) => `${p.project_id} (${p.name})`).join(', ');
  let hint: string;
  if (projects.length === 0)
    hint = 'No project is registered yet: call setup_project (project id and name) to create one.';
  else if (projects.length === 1)
    hint = `The one registered project is ${list}: pass project "${named[0]!.project_id}" (or call switch_project with it). list_projects shows the projects.`;
  else if (projects.length <= PROJECTS_NAMED)
    hint = `Registered projects: ${list}. Pass one as project (or call switch_project with it); list_projects shows them.`;
  else
    hint = `Call list_projects to see the ${projects.length} registered projects, then pass one as project or call switch_project with it.`;
  return new ToolError('NO_CURRENT_PROJECT', '現在のプロジェクトが設定されていません。', {
    hint,
    ...(projects.length > 0 && projects.length <= PROJECTS_NAMED ? { details: { projects: named } } : {}),
  });
}

/** Refuses text over a byte limit (nothing is saved). */
export function checkSize(field: string, text: string, max: number, configKey: string): void {
  const bytes = Buffer.byteLength(text, 'utf8');
  if (bytes > max) {
    throw new ToolError('LIMIT_EXCEEDED', `${field} is ${bytes} bytes; the limit is ${max} bytes.`, {
      hint: `Split it into several parts, or raise ${configKey} in config.toml.`,
      details: { field, bytes, limit: max },
    });
  }
}

import path from 'node:path';
import { parseArgs } from 'node:util';
import { createLogger, isToolError, type Logger } from '@mcp-workbench/core/engine';
import { loadConfig, type PrismindConfig } from './config/config.js';
import { migrateStore } from './engine/migrate-store.js';
import { openBackend } from './store/open-backend.js';
import { userOf, type Engine } from './engine/engine.js';
import { openEngine } from './open-engine.js';
import type { CLI_COMMANDS } from './cli-commands.js';
import { exportProject, importProject } from './engine/transfer.js';
import { loadBackend } from './store/optional-packages.js';
import { googleSettings } from './store/google/settings.js';

export interface CliIo {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  env?: NodeJS.ProcessEnv;
  /** Opens a URL in a browser (`auth login`; default: the platform's opener). */
  openUrl?: (url: string) => void;
}

const USAGE = `Usage:
  prismind-mcp export <project> <dir> [--config FILE]   write the project (JSON + Markdown documents) into <dir>
  prismind-mcp import <dir> [--merge] [--config FILE]   read an export into this store ($PRISMIND_HOME);
                                                    --merge: into an existing project, adding what it lacks
  prismind-mcp init-agents [<project>] [--config FILE]  print the AGENTS.md / CLAUDE.md block for a project
  prismind-mcp auth login [--no-browser] [--config FILE] sign in to Google (storage.backend = "google"); writes token.json
  prismind-mcp auth status [--config FILE]             which Google credentials the server would use, and whether they work
  prismind-mcp migrate --to postgres --url URL [--config FILE]
                                                    copy the local store ($PRISMIND_HOME) into PostgreSQL
  prismind-mcp migrate --to local [--url URL] [--home DIR] [--config FILE]
                                                    copy the PostgreSQL store into a local folder
  prismind-mcp [--config FILE] [--root DIR] …           run the MCP server on stdio (see --help)
`;

/** The minimal AGENTS.md / CLAUDE.md block of the spec: project name, how to start, "ask Prismind". */
export function agentsBlock(project: { project_id: string; name: string } | undefined): string {
  const id = project?.project_id ?? '<project-id>';
  const name = project?.name ?? '<プロジェクト名>';
  return `## Prismind

- プロジェクト: ${name}（Prismind の project: \`${id}\`）
- 作業を始めるときは MCP ツール \`start_session\`（project: "${id}"）を最初に呼ぶ。前回の続き・次にやること・ブロッカー・読むべき資料が返る。
- 作業を終えるときは \`end_session\`（summary と next_action）を呼ぶ。
- 設計・手順・進捗・知見などの詳細はこのファイルに書かず、Prismind から取得せよ（get_document / search_catalog / get_progress / search_knowledge）。
`;
}

async function initAgents(engine: Engine, projectId: string | undefined): Promise<string> {
  return engine.backend.read(async (stores) => {
    const id = projectId ?? (await stores.projects.getCurrent(userOf(engine)))?.project_id;
    const project = id ? await stores.projects.get(id) : undefined;
    if (projectId && !project)
      throw new Error(`Project "${projectId}" is not registered in ${engine.backend.location}.`);
    return agentsBlock(project);
  });
}

function errorText(error: unknown): string {
  return isToolError(error)
    ? `${error.code}: ${error.message}${error.hint ? `\n${error.hint}` : ''}`
    : String((error as Error).message ?? error);
}

/** `auth login` (the installed-app OAuth flow) and `auth status`, without opening the store. */
async function runAuth(
  args: string[],
  options: { configFile: string | undefined; noBrowser: boolean },
  io: CliIo,
): Promise<number> {
  const [sub, ...extra] = args;
  if ((sub !== 'login' && sub !== 'status') || extra.length > 0) {
    io.stderr(`prismind-mcp: auth needs "login" or "status".\n\n${USAGE}`);
    return 2;
  }
  try {
    const config = loadConfig({ configFile: options.configFile, ...(io.env ? { env: io.env } : {}) });
    const settings = googleSettings(config);
    // The Google clients are optional packages: loaded only here, with a clear error when missing.
    const { loadAuth } = await loadBackend('google', () => import('./store/google/auth.js'));
    const { login, openInBrowser } = await loadBackend('google', () => import('./store/google/login.js'));
    if (sub === 'login') {
      await login(settings, {
        say: io.stderr,
        ...(options.noBrowser ? {} : { open: io.openUrl ?? openInBrowser }),
      });
      return 0;
    }
    const logger = createLogger({ level: 'warn', name: 'prismind-mcp', write: io.stderr });
    const auth = await loadAuth(settings, logger);
    // What every API request does first (a service account signs its own token: no round trip).
    await auth.client.getRequestHeaders();
    await auth.settle();
    io.stdout(`Google credentials: ${auth.description}\nScopes: ${settings.scopes.join(' ')}\nToken: OK\n`);
    return 0;
  } catch (error) {
    io.stderr(`prismind-mcp auth ${sub}: ${errorText(error)}\n`);
    return 1;
  }
}

/** Runs a CLI command; returns the exit code (0 ok, 1 failed, 2 usage). */
export async function runCli(argv: string[], io: CliIo): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        config: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
        'no-browser': { type: 'boolean' },
        merge: { type: 'boolean' },
        to: { type: 'string' },
        url: { type: 'string' },
        home: { type: 'string' },
      },
    });
  } catch (error) {
    io.stderr(`prismind-mcp: ${(error as Error).message}\n\n${USAGE}`);
    return 2;
  }
  const [command, ...rest] = parsed.positionals;
  if (parsed.values.help) {
    io.stdout(USAGE);
    return 0;
  }
  if (command === 'auth') {
    return runAuth(
      rest,
      { configFile: parsed.values.config, noBrowser: parsed.values['no-browser'] === true },
      io,
    );
  }
  const arity = { export: 2, import: 1, 'init-agents': -1, migrate: 0 }[
    command as Exclude<(typeof CLI_COMMANDS)[number], 'auth'>
  ];
  if (arity === undefined || (arity >= 0 && rest.length !== arity) || (arity < 0 && rest.length > 1)) {
    io.stderr(`prismind-mcp: wrong arguments for "${command ?? ''}".\n\n${USAGE}`);
    return 2;
  }
  const logger = createLogger({ level: 'warn', name: 'prismind-mcp', write: io.stderr });
  if (command === 'migrate') return migrate(parsed.values, io, logger);
  let engine: Engine | undefined;
  try {
    engine = await openEngine(
      { configFile: parsed.values.config, ...(io.env ? { env: io.env } : {}) },
      logger,
    );
    if (command === 'export') {
      const done = await exportProject(engine, rest[0]!, rest[1]!);
      io.stdout(
        `Exported ${done.project}: ${done.documents} documents, ${done.tasks} tasks, ${done.knowledge} knowledge entries → ${done.dir}\n`,
      );
    } else if (command === 'import') {
      const done = await importProject(engine, rest[0]!, { merge: parsed.values.merge === true });
      io.stdout(
        `${done.merged ? 'Merged into' : 'Imported'} ${done.project}: ${done.documents} documents, ${done.tasks} tasks, ${done.knowledge} knowledge entries into ${engine.backend.location}\n`,
      );
    } else {
      io.stdout(await initAgents(engine, rest[0]));
    }
    return 0;
  } catch (error) {
    io.stderr(`prismind-mcp ${command}: ${errorText(error)}\n`);
    return 1;
  } finally {
    await engine?.backend.close();
  }
}

/** `migrate --to postgres|local`: copies every project between the local folder and PostgreSQL. */
async function migrate(
  values: {
    config?: string | undefined;
    to?: string | undefined;
    url?: string | undefined;
    home?: string | undefined;
  },
  io: CliIo,
  logger: Logger,
): Promise<number> {
  if (values.to !== 'postgres' && values.to !== 'local') {
    io.stderr(`prismind-mcp migrate: --to must be postgres or local.\n\n${USAGE}`);
    return 2;
  }
  const engines: Engine[] = [];
  try {
    const config = loadConfig({ configFile: values.config, ...(io.env ? { env: io.env } : {}) });
    const url = values.url ?? config.storage.url;
    if (values.to === 'postgres' && !values.url) {
      io.stderr(`prismind-mcp migrate: --to postgres needs --url postgres://….\n\n${USAGE}`);
      return 2;
    }
    const local: PrismindConfig = {
      ...config,
      home: path.resolve(values.to === 'local' && values.home ? values.home : config.home),
      storage: { ...config.storage, backend: 'local' },
    };
    const postgres: PrismindConfig = { ...config, storage: { ...config.storage, backend: 'postgres', url } };
    const engineOf = async (c: PrismindConfig) => {
      const engine: Engine = {
        backend: await openBackend(c, logger),
        config: c,
        logger,
        now: () => new Date(),
        active: undefined,
        served: new Map(),
      };
      engines.push(engine);
      return engine;
    };
    const [from, to] =
      values.to === 'postgres'
        ? [await engineOf(local), await engineOf(postgres)]
        : [await engineOf(postgres), await engineOf(local)];
    const done = await migrateStore(from, to);
    io.stdout(
      `Copied ${done.projects.length} project(s) (${done.projects.join(', ') || 'none'}): ${done.documents} documents, ` +
        `${done.tasks} tasks, ${done.knowledge} knowledge entries\n  from ${from.backend.location}\n  to   ${to.backend.location}\n` +
        (done.skipped.length > 0
          ? `Skipped (already in the target, left as they are): ${done.skipped.join(', ')}\n`
          : ''),
    );
    return 0;
  } catch (error) {
    io.stderr(`prismind-mcp migrate: ${errorText(error)}\n`);
    return 1;
  } finally {
    for (const engine of engines) await engine.backend.close();
  }
}

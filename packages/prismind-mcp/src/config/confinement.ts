import { existsSync, realpathSync, statSync } from 'node:fs';
import path from 'node:path';
import { PathPolicy, parseCommonFlags, type FlagSpec } from '@mcp-workbench/core';
import { ToolError } from '@mcp-workbench/core/engine';
import type { PrismindConfig } from './config.js';

/**
 * What `--root` / `--deny-glob` mean for prismind: the server's tools take no paths, they touch the
 * store folder (PRISMIND_HOME), its config.toml and the files beside it. So the store must lie inside
 * the given roots and outside the denied globs: the server refuses to start otherwise, and every store
 * file it reads or writes later is checked too (a document named to match a denied glob is refused).
 * Without these flags nothing is confined (the default root is the working folder, and the store lives
 * elsewhere by design). MCP client roots do not confine the store: they name the client's workspace.
 */
export interface Confinement {
  /** Whether the server may touch this absolute path (real, or inside a real folder). */
  permits(file: string): boolean;
  /** The flags, as the messages name them. */
  describe: string;
}

/** The confinement the command line asks for, or undefined when it names no root and no deny glob. */
export async function confinementOf(
  argv: readonly string[],
  serverFlags: Record<string, FlagSpec>,
): Promise<Confinement | undefined> {
  const flags = parseCommonFlags(argv, serverFlags, {});
  if (flags.roots.length === 0 && flags.denyGlobs.length === 0) return undefined;
  // Only deny globs: every folder is a root, the globs still apply (to the path below /).
  const roots = flags.roots.length > 0 ? flags.roots : [path.parse(process.cwd()).root];
  const policy = await PathPolicy.create({ roots, denyGlobs: flags.denyGlobs });
  return {
    permits: (file) => policy.allows(realOf(file)),
    describe: [
      ...flags.roots.map((r) => `--root ${r}`),
      ...flags.denyGlobs.map((g) => `--deny-glob ${g}`),
    ].join(' '),
  };
}

/** A path's real path, or its nearest existing folder's real path joined with the rest. */
function realOf(file: string): string {
  const rest: string[] = [];
  let here = path.resolve(file);
  while (!existsSync(here)) {
    const parent = path.dirname(here);
    if (parent === here) break;
    rest.unshift(path.basename(here));
    here = parent;
  }
  return path.join(realpathSync.native(here), ...rest);
}

/**
 * Refuses a store the confinement does not allow, naming the path and the flags: the store folder, its
 * database, config.toml, and the kinds of files it holds (a document, the generated views).
 */
export function checkConfined(config: PrismindConfig, confinement: Confinement): void {
  const home = config.home;
  const files = [home, config.config_file];
  if (config.storage.backend === 'local') {
    files.push(
      path.join(home, 'prismind.db'),
      path.join(home, 'Projects'),
      path.join(home, 'Projects', 'project', '設計書', 'document.md'),
      path.join(home, 'Projects', 'project', '進捗.md'),
    );
  }
  if (config.storage.backend === 'google' && config.google.token_path)
    files.push(path.resolve(path.dirname(config.config_file), config.google.token_path));
  if (config.log.file) files.push(path.resolve(path.dirname(config.config_file), config.log.file));
  const refused = files.filter((file) => !confinement.permits(file));
  if (refused.length === 0) return;
  const isDir = (file: string) => existsSync(file) && statSync(file).isDirectory();
  // A refused store folder says it all: the example paths of files below it would only repeat it.
  const named = refused.filter(
    (file) => file === home || !refused.includes(home) || !file.startsWith(home + path.sep),
  );
  throw new ToolError(
    'PATH_OUTSIDE_ROOT',
    `The store's files are outside ${confinement.describe}: ${named
      .map((f) => `${f}${isDir(f) ? '/' : ''}`)
      .join(', ')}. prismind-mcp touches only its store folder (PRISMIND_HOME=${home}).`,
    {
      hint: 'Give a --root that holds the store folder (and deny globs that leave its files alone), or point PRISMIND_HOME into the root.',
      details: { home, refused },
    },
  );
}

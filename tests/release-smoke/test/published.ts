// What the release tests share: the published packages of this workspace and one real tool call per server.
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const repo = fileURLToPath(new URL('../../../', import.meta.url));

export interface Published {
  dir: string;
  name: string;
  version: string;
  bin: Record<string, string>;
  mcpName?: string;
  repository?: { url: string; directory?: string };
  private?: boolean;
  engines?: { node?: string };
  peerDependencies?: Record<string, string>;
  peerDependenciesMeta?: Record<string, { optional?: boolean }>;
}

/** Every package under packages/ that is published (not private). */
export async function publishedPackages(): Promise<Published[]> {
  const dirs = await readdir(path.join(repo, 'packages'));
  const found: Published[] = [];
  for (const dir of dirs) {
    const manifest = JSON.parse(
      await readFile(path.join(repo, 'packages', dir, 'package.json'), 'utf8'),
    ) as Published;
    if (!manifest.private)
      found.push({ ...manifest, dir: path.join(repo, 'packages', dir), bin: manifest.bin ?? {} });
  }
  return found;
}

/** The published packages that are MCP servers (a `*-mcp` bin), with that bin's name. */
export function serversOf(packages: Published[]): (Published & { binName: string })[] {
  return packages.flatMap((p) => {
    const binName = Object.keys(p.bin).find((b) => b.endsWith('-mcp'));
    return binName ? [{ ...p, binName }] : [];
  });
}

/**
 * A tool call each server answers in an empty project, from its installed files alone. Paths are
 * relative: they resolve against the server's first root.
 */
export const FIRST_CALL: Record<string, { name: string; arguments: Record<string, unknown> }> = {
  'exstruct-mcp': { name: 'exstruct_make', arguments: { out_path: 'smoke.xlsx', ops: [] } },
  // Parses smoke.ts (written by the test) with the TypeScript grammar shipped by the installed dependency.
  'code-reader-mcp': { name: 'check_code_scale', arguments: { file_path: 'smoke.ts' } },
  // Lists the (empty) session folder: proves the server starts and its engine loads.
  'md-review-mcp': { name: 'review_list', arguments: {} },
  // Opens (creates) its SQLite store in PRISMIND_HOME: the native addon must load.
  'prismind-mcp': { name: 'list_projects', arguments: {} },
};

export const SMOKE_TS = 'export function add(a: number, b: number) {\n  return a + b;\n}\n';

import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { ToolError } from '@mcp-workbench/core/engine';

const binaryName = process.platform === 'win32' ? 'rg.exe' : 'rg';

const INSTALL_HINT =
  'Install ripgrep: reinstall code-reader-mcp so its @vscode/ripgrep dependency brings the binary for ' +
  'your platform, or install it from your package manager (apt-get install ripgrep, brew install ripgrep, ' +
  'winget install BurntSushi.ripgrep.MSVC), or point CODE_READER_RG_PATH at an rg executable.';

/**
 * Where `@vscode/ripgrep` finds its binary, resolved as its index does (`rgPath`: the per-platform
 * package's bin/, for npm_config_arch or this arch) but without importing it: the import is the first
 * ES module of the server's process, and loading Node's ES module loader for it cost a fresh server's
 * first search 15-35 ms before ripgrep started. Undefined when that layout is not found.
 */
export function platformRgPath(env: NodeJS.ProcessEnv = process.env): string | undefined {
  try {
    const require = createRequire(import.meta.url);
    const index = require.resolve('@vscode/ripgrep');
    const arch = env.npm_config_arch || process.arch;
    const found = createRequire(index).resolve(
      `@vscode/ripgrep-${process.platform}-${arch}/bin/${binaryName}`,
    );
    return existsSync(found) ? found : undefined;
  } catch {
    return undefined;
  }
}

/** The rg binary shipped by `@vscode/ripgrep` (in a per-platform npm package), when it is installed. */
async function bundledRgPath(): Promise<string | undefined> {
  const found = platformRgPath();
  if (found) return found;
  try {
    // Its index throws when no platform package matches this machine; that is not an error for us.
    const { rgPath } = (await import('@vscode/ripgrep')) as { rgPath: string };
    return existsSync(rgPath) ? rgPath : undefined;
  } catch {
    return undefined;
  }
}

function onPath(env: NodeJS.ProcessEnv): string | undefined {
  const dirs = (env.PATH ?? '').split(path.delimiter).filter(Boolean);
  for (const dir of dirs) {
    const candidate = path.join(dir, binaryName);
    if (existsSync(candidate)) return candidate;
  }
  return undefined;
}

let cached: string | undefined;

/**
 * Finds the ripgrep binary: CODE_READER_RG_PATH, then the one `@vscode/ripgrep` ships, then `rg` on
 * PATH. Throws BACKEND_UNAVAILABLE (saying how to install it) when there is none.
 */
export async function locateRipgrep(
  env: NodeJS.ProcessEnv = process.env,
  bundled: () => Promise<string | undefined> = bundledRgPath,
): Promise<string> {
  const override = env.CODE_READER_RG_PATH;
  if (override) {
    if (existsSync(override)) return override;
    throw new ToolError(
      'BACKEND_UNAVAILABLE',
      `CODE_READER_RG_PATH points to ${override}, which does not exist.`,
      {
        hint: INSTALL_HINT,
      },
    );
  }
  const usual = env === process.env && bundled === bundledRgPath;
  if (usual && cached) return cached;
  const found = (await bundled()) ?? onPath(env);
  if (!found) {
    throw new ToolError('BACKEND_UNAVAILABLE', 'The ripgrep (rg) binary was not found.', {
      hint: INSTALL_HINT,
    });
  }
  if (usual) cached = found;
  return found;
}

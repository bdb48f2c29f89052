import { existsSync } from 'node:fs';
import path from 'node:path';
import { ToolError } from '@mcp-workbench/core/engine';

const binaryName = process.platform === 'win32' ? 'rg.exe' : 'rg';

const INSTALL_HINT =
  'Install ripgrep: reinstall code-reader-mcp so its @vscode/ripgrep dependency brings the binary for ' +
  'your platform, or install it from your package manager (apt-get install ripgrep, brew install ripgrep, ' +
  'winget install BurntSushi.ripgrep.MSVC), or point CODE_READER_RG_PATH at an rg executable.';

/** The rg binary shipped by `@vscode/ripgrep` (in a per-platform npm package), when it is installed. */
async function bundledRgPath(): Promise<string | undefined> {
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

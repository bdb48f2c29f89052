import { runRipgrep } from '../rg/run.js';

/** A probe's time limit: it stops at the first file, so it takes milliseconds unless the disk is slow. */
const PROBE_TIMEOUT_MS = 2000;

/**
 * The roots whose files an ignore file in a folder above them hides: a root inside `node_modules`, or in
 * any folder a parent repository's `.gitignore` names. ripgrep honours those files (as the README says), so
 * a listing or search there finds nothing, and an empty answer alone does not say why. Asked only after
 * an answer found no file: a root is named when ripgrep lists no file there with the answer's filters
 * (`filterArgs`), and one without the ignore files above it. Each listing stops at its first file.
 */
export async function rootsIgnoredFromAbove(
  roots: readonly string[],
  filterArgs: readonly string[],
  signal?: AbortSignal,
): Promise<string[]> {
  const hidden: string[] = [];
  for (const root of roots) {
    if (await anyFile(root, filterArgs, signal)) continue; // files are there: a filter left them out
    if (await anyFile(root, ['--no-ignore-parent', ...filterArgs], signal)) hidden.push(root);
  }
  return hidden;
}

async function anyFile(root: string, args: readonly string[], signal?: AbortSignal): Promise<boolean> {
  const listing = await runRipgrep(['--files', ...args, '.'], {
    cwd: root,
    timeoutMs: PROBE_TIMEOUT_MS,
    ...(signal ? { signal } : {}),
    onLine: () => false,
  });
  return listing.stopped;
}

/** What an empty answer says when ignore files above its roots hid every file. */
export function ignoredFromAboveWarning(roots: readonly string[]): string {
  const where = roots.map((root) => (root === '.' ? 'the project folder' : root)).join(', ');
  return `No file was found: an ignore file in a folder above (a .gitignore naming node_modules, build, …) hides every file under ${where}. Pass no_ignore: true to read them.`;
}

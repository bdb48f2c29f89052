// Copies one package and everything it needs at run time out of an npm install (a flat node_modules
// holding all the servers) into a bundle's own node_modules, keeping every package at the same relative
// place so Node resolves exactly as it did in the install.
import { copyFile, link, mkdir, readdir, readFile, readlink, stat, symlink } from 'node:fs/promises';
import path from 'node:path';

/**
 * Dependencies that are needed to install a package, never to run it. better-sqlite3 depends on
 * prebuild-install only for its install script (the bundler fetches the addons itself).
 */
const INSTALL_ONLY = { 'better-sqlite3': ['prebuild-install'] };

async function isPackage(dir) {
  try {
    return (await stat(path.join(dir, 'package.json'))).isFile();
  } catch {
    return false;
  }
}

/** Where Node finds `name` when `fromDir`'s package requires it, searching up to `root`. */
async function resolvePackage(root, fromDir, name) {
  for (let dir = fromDir; ; dir = path.dirname(dir)) {
    const candidate = path.join(dir, 'node_modules', ...name.split('/'));
    if (await isPackage(candidate)) return candidate;
    if (dir === root || path.dirname(dir) === dir) return undefined;
  }
}

/**
 * The directories of `name` and its run-time dependencies inside the install at `root`.
 * A missing optional or optional peer dependency is skipped; any other missing one is an error.
 * `withInstallOnly` also follows the dependencies only an install script needs (what npm installs);
 * `withOptionalPeers: false` leaves installed optional peers out (what `npx` alone would install).
 */
export async function dependencyClosure(
  root,
  name,
  { withInstallOnly = false, withOptionalPeers = true } = {},
) {
  const start = await resolvePackage(root, root, name);
  if (!start) throw new Error(`${name} is not installed in ${root}`);
  const seen = new Map(); // dir → package name
  const visit = async (dir) => {
    if (seen.has(dir)) return;
    const manifest = JSON.parse(await readFile(path.join(dir, 'package.json'), 'utf8'));
    seen.set(dir, manifest.name);
    const skip = new Set(withInstallOnly ? [] : (INSTALL_ONLY[manifest.name] ?? []));
    const optionalPeers = new Set(
      Object.entries(manifest.peerDependenciesMeta ?? {})
        .filter(([, meta]) => meta?.optional)
        .map(([dep]) => dep),
    );
    const wanted = [
      ...Object.keys(manifest.dependencies ?? {}).map((dep) => [dep, false]),
      ...Object.keys(manifest.optionalDependencies ?? {}).map((dep) => [dep, true]),
      ...Object.keys(manifest.peerDependencies ?? {})
        .filter((dep) => withOptionalPeers || !optionalPeers.has(dep))
        .map((dep) => [dep, optionalPeers.has(dep)]),
    ];
    for (const [dep, optional] of wanted) {
      if (skip.has(dep)) continue;
      const found = await resolvePackage(root, dir, dep);
      if (found) await visit(found);
      else if (!optional) throw new Error(`${manifest.name} needs ${dep}, which is not installed in ${root}`);
    }
  };
  await visit(start);
  return seen;
}

/**
 * Puts each file of `from` at the same place under `to`: a hard link where the file system allows it
 * (a bundle is staged next to the install, and thousands of small files link far faster than they copy;
 * nothing in a stage is modified in place), a copy elsewhere. `skip` is a directory left out.
 */
async function mirrorTree(from, to, skip) {
  await mkdir(to, { recursive: true });
  const entries = await readdir(from, { withFileTypes: true });
  await Promise.all(
    entries.map(async (entry) => {
      const source = path.join(from, entry.name);
      const target = path.join(to, entry.name);
      if (entry.isDirectory()) {
        if (source !== skip) await mirrorTree(source, target, skip);
      } else if (entry.isSymbolicLink()) {
        await symlink(await readlink(source), target);
      } else if (entry.isFile()) {
        await link(source, target).catch(() => copyFile(source, target));
      }
    }),
  );
}

/** Puts the packages (directories under `root`) at the same relative places under `dest`. */
export async function copyPackages(root, dirs, dest) {
  for (const dir of dirs) {
    // Nested node_modules hold other packages: each is placed when the closure reaches it.
    await mirrorTree(dir, path.join(dest, path.relative(root, dir)), path.join(dir, 'node_modules'));
  }
}

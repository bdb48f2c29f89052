// The per-platform parts of a bundle: the other CPU architectures' optional platform packages (ripgrep's
// binary) and a native addon built for every architecture and Node.js ABI the bundle claims.
import { execFile } from 'node:child_process';
import { createRequire } from 'node:module';
import { copyFile, cp, mkdir, mkdtemp, readdir, readFile, rename, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const npm = 'npm';

async function readManifest(dir) {
  return JSON.parse(await readFile(path.join(dir, 'package.json'), 'utf8'));
}

/**
 * Extracts an npm tarball in its own folder (its `package/` folder) and moves that to `dest`. tar only
 * ever sees a relative name: GNU tar (Git Bash's, on Windows) reads "C:\\..." as a remote host.
 */
async function extractTarball(tarball, dest) {
  await run('tar', ['-xzf', path.basename(tarball)], { cwd: path.dirname(tarball) });
  await mkdir(path.dirname(dest), { recursive: true });
  const unpacked = path.join(path.dirname(tarball), 'package');
  await rename(unpacked, dest).catch(async (error) => {
    if (error.code !== 'EXDEV') throw error;
    await cp(unpacked, dest, { recursive: true }); // another file system
  });
}

/**
 * npm installed the optional platform packages of one architecture (`--cpu`); this adds the same
 * packages for the other architectures of the platform, next to them in the bundle's node_modules.
 * A family (a package with `<name>-<platform>-<arch>` optional dependencies) must have one for every
 * architecture, or the bundle would not run where it claims to.
 */
export async function addOtherArchitectures(stage, packages, platform, arches) {
  const added = [];
  for (const [dir, name] of packages) {
    const optional = (await readManifest(dir)).optionalDependencies ?? {};
    const family = Object.keys(optional).filter((dep) => dep.endsWith(`-${platform}-${arches[0]}`));
    if (family.length === 0) continue;
    for (const arch of arches.slice(1)) {
      const dep = `${family[0].slice(0, -arches[0].length)}${arch}`;
      if (!(dep in optional)) throw new Error(`${name} has no ${platform}-${arch} package (${dep})`);
      const scratch = await mkdtemp(path.join(os.tmpdir(), 'bundle-pack-'));
      const { stdout } = await run(
        npm,
        [
          'pack',
          `${dep}@${optional[dep]}`,
          '--pack-destination',
          scratch,
          '--json',
          '--prefer-offline',
          '--loglevel=error',
        ],
        { cwd: scratch, shell: process.platform === 'win32' },
      );
      const [{ filename }] = JSON.parse(stdout);
      const dest = path.join(stage, 'node_modules', ...dep.split('/'));
      await extractTarball(path.join(scratch, filename), dest);
      await rm(scratch, { recursive: true, force: true });
      const manifest = await readManifest(dest);
      if (!(manifest.os ?? [platform]).includes(platform) || !(manifest.cpu ?? [arch]).includes(arch)) {
        throw new Error(`${dep} is not for ${platform}-${arch} (os ${manifest.os}, cpu ${manifest.cpu})`);
      }
      added.push(`${dep}@${manifest.version}`);
    }
  }
  return added;
}

/**
 * Puts the native addon of `addon` (a prebuild-install package such as better-sqlite3) into the bundle
 * for every architecture × Node.js target, at lib/binding/node-v<abi>-<platform>-<arch>/, where the
 * `bindings` loader looks for it; drops the sources and any addon the install built for this machine.
 * The prebuilt addons come from the package's release downloads (npm_config_<name>_binary_host points
 * prebuild-install at a mirror). Returns the ABIs placed.
 */
export async function addNativeAddons({ installRoot, stage, addon, platform, arches, nodeTargets }) {
  const addonDir = path.join(stage, 'node_modules', ...addon.split('/'));
  const require = createRequire(path.join(installRoot, 'node_modules', addon, 'package.json'));
  const prebuildInstall = require.resolve('prebuild-install/bin.js');
  const { getAbi } = createRequire(prebuildInstall)('node-abi');
  const placed = [];
  for (const arch of arches) {
    for (const target of nodeTargets) {
      const abi = getAbi(target, 'node');
      const scratch = await mkdtemp(path.join(os.tmpdir(), 'bundle-addon-'));
      await copyFile(path.join(addonDir, 'package.json'), path.join(scratch, 'package.json'));
      try {
        await run(
          process.execPath,
          [prebuildInstall, '--platform', platform, '--arch', arch, '--runtime', 'node', '--target', target],
          { cwd: scratch },
        );
      } catch (error) {
        throw new Error(
          `no prebuilt ${addon} for Node ${target} (ABI ${abi}) on ${platform}-${arch}: ${error.stderr || error.message}`,
        );
      }
      const built = path.join(scratch, 'build', 'Release');
      const files = (await readdir(built)).filter((f) => f.endsWith('.node'));
      const into = path.join(addonDir, 'lib', 'binding', `node-v${abi}-${platform}-${arch}`);
      await mkdir(into, { recursive: true });
      for (const file of files) await rename(path.join(built, file), path.join(into, file));
      await rm(scratch, { recursive: true, force: true });
      placed.push({ target, abi, arch });
    }
  }
  // Only lib/ runs. A build/ left by an install would be tried first by `bindings` (and fail under any
  // other ABI); deps/ and src/ are the C sources (about 10 MB).
  for (const part of ['build', 'deps', 'src', 'binding.gyp']) {
    await rm(path.join(addonDir, part), { recursive: true, force: true });
  }
  return placed;
}

/** Packages in `packages` that only run on some operating systems or CPUs (a universal bundle has none). */
export async function platformBoundPackages(packages) {
  const bound = [];
  for (const [dir, name] of packages) {
    const manifest = await readManifest(dir);
    if (manifest.os || manifest.cpu || manifest.gypfile || manifest.binary) bound.push(name);
  }
  return bound;
}

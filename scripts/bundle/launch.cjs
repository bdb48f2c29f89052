'use strict';
// The entry point of a bundle whose server needs a native addon (prismind-mcp: better-sqlite3).
//
// The bundle carries the addon for every Node.js ABI and architecture it claims
// (node_modules/<addon>/lib/binding/node-v<abi>-<platform>-<arch>/). When the runtime that started this
// file can load it, the server runs right here. When it cannot — Claude Desktop's built-in Node.js runs
// extensions inside the app (Electron's ABI; on macOS it also refuses native modules signed by anyone
// else), or a Node.js line the bundle has no addon for — the server runs under a Node.js installed on the
// machine whose ABI the bundle does carry, with this process's stdio; failing that, the error says what
// to install.
const { spawn, spawnSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { pathToFileURL } = require('node:url');

const bundle = path.resolve(__dirname, '..');
const config = JSON.parse(fs.readFileSync(path.join(__dirname, 'launch.json'), 'utf8'));
const entry = path.join(bundle, config.entry);
const addonDir = path.join(bundle, config.addon);
const bindings = fs.existsSync(path.join(addonDir, 'lib', 'binding'))
  ? fs.readdirSync(path.join(addonDir, 'lib', 'binding'))
  : [];

// The probe's connection lives as long as the process: better-sqlite3 12's destructor, run by the
// garbage collector on Node 24, aborts the process (see the server's store/local/database.ts).
let probe;

/** Why the addon does not work in this process, or '' when it does. */
function addonProblem() {
  try {
    const Database = require(addonDir);
    probe = new Database(':memory:');
    probe.close();
    return '';
  } catch (error) {
    return error instanceof Error ? error.message.split('\n')[0] : String(error);
  }
}

function carries(abi, platform, arch) {
  return bindings.includes(`node-v${abi}-${platform}-${arch}`);
}

/** Every directory newest-first that matches dir/<version>/rest (nvm, fnm, nvm-windows layouts). */
function versionDirs(dir, rest) {
  try {
    return fs
      .readdirSync(dir)
      .sort((a, b) => b.localeCompare(a, 'en', { numeric: true }))
      .map((version) => path.join(dir, version, ...rest));
  } catch {
    return [];
  }
}

/** Where Node.js is usually installed: PATH first, then package managers and version managers. */
function candidateNodes() {
  const home = os.homedir();
  const exe = process.platform === 'win32' ? 'node.exe' : 'node';
  const dirs = (process.env.PATH || '').split(path.delimiter).filter(Boolean);
  if (process.platform === 'win32') {
    const programFiles = process.env.ProgramFiles || 'C:\\Program Files';
    const appData = process.env.APPDATA || path.join(home, 'AppData', 'Roaming');
    const localAppData = process.env.LOCALAPPDATA || path.join(home, 'AppData', 'Local');
    dirs.push(
      path.join(programFiles, 'nodejs'),
      path.join(localAppData, 'Volta', 'bin'),
      ...versionDirs(path.join(appData, 'nvm'), []),
      ...versionDirs(path.join(appData, 'fnm', 'node-versions'), ['installation']),
    );
  } else {
    dirs.push(
      '/opt/homebrew/bin',
      '/usr/local/bin',
      '/usr/bin',
      '/opt/local/bin',
      path.join(home, '.volta', 'bin'),
      ...versionDirs(path.join(home, '.nvm', 'versions', 'node'), ['bin']),
      ...versionDirs(path.join(home, '.local', 'share', 'fnm', 'node-versions'), ['installation', 'bin']),
      ...versionDirs(path.join(home, 'Library', 'Application Support', 'fnm', 'node-versions'), [
        'installation',
        'bin',
      ]),
      path.join(home, '.asdf', 'shims'),
      path.join(home, '.local', 'share', 'mise', 'shims'),
    );
  }
  const self = realpath(process.execPath);
  const seen = new Set();
  return dirs
    .map((dir) => path.join(dir, exe))
    .filter((file) => {
      const real = realpath(file);
      if (!real || real === self || seen.has(real)) return false;
      seen.add(real);
      return true;
    });
}

function realpath(file) {
  try {
    return fs.realpathSync(file);
  } catch {
    return '';
  }
}

/** The first installed Node.js (>= 20.19) whose ABI, platform and architecture the bundle carries. */
function findNode() {
  for (const node of candidateNodes()) {
    const probe = spawnSync(
      node,
      ['-p', '[process.versions.modules, process.platform, process.arch, process.version].join(" ")'],
      { encoding: 'utf8', timeout: 15000, windowsHide: true },
    );
    if (probe.status !== 0) continue;
    const [abi, platform, arch, version] = probe.stdout.trim().split(' ');
    const [major, minor] = version.slice(1).split('.').map(Number);
    if (major < 20 || (major === 20 && minor < 19)) continue;
    if (carries(abi, platform, arch)) return node;
  }
  return undefined;
}

function runHere() {
  import(pathToFileURL(entry).href).catch((error) => {
    console.error(error);
    process.exit(1);
  });
}

function runUnder(node) {
  const child = spawn(node, [entry, ...process.argv.slice(2)], { stdio: 'inherit', windowsHide: true });
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
    process.on(signal, () => child.kill(signal));
  }
  child.on('error', (error) => {
    console.error(`${config.name}: could not start ${node}: ${error.message}`);
    process.exit(1);
  });
  child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
}

const problem = addonProblem();
if (!problem) {
  runHere();
} else {
  const node = findNode();
  if (node) {
    runUnder(node);
  } else {
    const shipped = bindings.map((b) => b.replace(/^node-v/, 'ABI ')).join(', ');
    const runtime = process.versions.electron
      ? `the app's built-in Node.js ${process.version} (Electron ${process.versions.electron})`
      : `Node.js ${process.version} (ABI ${process.versions.modules}, ${process.platform}-${process.arch})`;
    console.error(
      `${config.name}: its SQLite addon does not load in ${runtime}: ${problem}\n` +
        `This bundle carries the addon for ${shipped}. Install Node.js ${config.nodeLines} from https://nodejs.org ` +
        `and restart the app (in Claude Desktop you can also turn off Settings > Extensions > Advanced > ` +
        `"Use Built-in Node.js for MCP"), or install the server with npm: npx -y ${config.name}.`,
    );
    process.exit(1);
  }
}

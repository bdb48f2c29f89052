#!/usr/bin/env node
// Part of the release's version step (`pnpm version-packages`, after `changeset version`): gives every
// packages/<server>/server.json the version its package.json now has — the entry's own `version` and its
// npm package's `version` — so the MCP Registry entry always names the npm release it describes.
// Only the version strings change (the rest of the file, and its formatting, stays as it was).
//
//   node scripts/sync-server-versions.mjs [repo-root]     (default: this repository)
//   node scripts/sync-server-versions.mjs --check [root]  exits 1 and names every file that is behind
import { readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const args = process.argv.slice(2);
const check = args.includes('--check');
const root = path.resolve(
  args.find((a) => !a.startsWith('--')) ?? fileURLToPath(new URL('..', import.meta.url)),
);

/** The server.json text with its versions set to `version`, or an error naming what does not fit. */
function withVersion(text, packageName, version) {
  const doc = JSON.parse(text);
  const npm = (doc.packages ?? []).filter((p) => p.registryType === 'npm' && p.identifier === packageName);
  if (npm.length !== 1) throw new Error(`expected one npm package "${packageName}" in packages[]`);
  const versions = new Set([doc.version, npm[0].version]);
  let next = text;
  for (const old of versions) {
    next = next.replaceAll(`"version": ${JSON.stringify(old)}`, `"version": ${JSON.stringify(version)}`);
  }
  const updated = JSON.parse(next);
  const updatedNpm = updated.packages.find((p) => p.registryType === 'npm' && p.identifier === packageName);
  if (updated.version !== version || updatedNpm.version !== version) {
    throw new Error(`could not set version ${version} (is "version" written as "version": "x.y.z"?)`);
  }
  return next;
}

const behind = [];
for (const dir of await readdir(path.join(root, 'packages'))) {
  const folder = path.join(root, 'packages', dir);
  let serverJson;
  try {
    serverJson = await readFile(path.join(folder, 'server.json'), 'utf8');
  } catch (error) {
    if (error.code === 'ENOENT') continue; // not a server (core)
    throw error;
  }
  const { name, version } = JSON.parse(await readFile(path.join(folder, 'package.json'), 'utf8'));
  let next;
  try {
    next = withVersion(serverJson, name, version);
  } catch (error) {
    console.error(`packages/${dir}/server.json: ${error.message}`);
    process.exit(1);
  }
  if (next === serverJson) continue;
  behind.push(`packages/${dir}/server.json`);
  if (!check) {
    await writeFile(path.join(folder, 'server.json'), next);
    console.log(`packages/${dir}/server.json: version ${version}`);
  }
}
if (check && behind.length > 0) {
  console.error(`server.json behind its package.json: ${behind.join(', ')} (run: pnpm version-packages)`);
  process.exit(1);
}

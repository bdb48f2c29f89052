#!/usr/bin/env node
// Lists every skipped test of the last run (from each package's .reports/vitest.json) as Markdown, for a CI
// job summary: on runners that lack a component, skips are expected, and none of them is silent. Each test
// states its reason when it skips (vitest prints it in the log).
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = fileURLToPath(new URL('../..', import.meta.url));
const lines = [];
for (const group of ['packages', 'apps', 'tests']) {
  if (!existsSync(path.join(repo, group))) continue;
  for (const pkg of readdirSync(path.join(repo, group))) {
    const report = path.join(repo, group, pkg, '.reports', 'vitest.json');
    if (!existsSync(report)) continue;
    const { testResults } = JSON.parse(readFileSync(report, 'utf8'));
    for (const file of testResults) {
      for (const test of file.assertionResults) {
        if (test.status === 'skipped' || test.status === 'pending' || test.status === 'todo') {
          lines.push(`| ${group}/${pkg} | ${path.relative(repo, file.name)} | ${test.fullName} |`);
        }
      }
    }
  }
}
console.log(`### Skipped tests (${process.platform})\n`);
if (lines.length === 0) console.log('None.');
else console.log(['| package | file | test |', '| --- | --- | --- |', ...lines].join('\n'));

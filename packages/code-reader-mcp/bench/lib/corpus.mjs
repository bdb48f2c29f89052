// Generates (once) a synthetic source tree of ≥ 50,000 files under .bench-data/corpus.
import { performance } from 'node:perf_hooks';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
export const CORPUS = path.resolve(here, '../../.bench-data/corpus');
export const FILE_COUNT = 50_000;
const MARKER = path.join(CORPUS, '.generated');

const EXTENSIONS = ['ts', 'py', 'js', 'go', 'rs', 'java', 'md', 'json'];

function body(i, ext) {
  const lines = [];
  const n = 20 + (i % 60);
  const comment = ext === 'py' ? '#' : '//';
  lines.push(`${comment} generated file ${i} for the code-reader benchmark`);
  for (let l = 0; l < n; l++) {
    const id = `item_${i}_${l}`;
    if (l % 10 === 0) lines.push(`${comment} section ${l}: handles ${id}`);
    else if (ext === 'py') lines.push(`    value_${l} = compute("${id}", ${l}) if ready else None`);
    else if (ext === 'md') lines.push(`- entry ${id} with some prose about the module and its purpose`);
    else if (ext === 'json') lines.push(`  "${id}": ${l},`);
    else lines.push(`  const value${l} = compute('${id}', ${l}); // step ${l}`);
  }
  // A few rare markers for searches with a bounded number of hits.
  if (i % 97 === 0) lines.push(`${comment} TODO bench_marker_${i % 7}`);
  return `${lines.join('\n')}\n`;
}

/** The corpus directory, generated on first use (a few seconds). */
export function ensureCorpus() {
  if (existsSync(MARKER) && Number(readFileSync(MARKER, 'utf8')) >= FILE_COUNT) return CORPUS;
  const started = performance.now();
  for (let i = 0; i < FILE_COUNT; i++) {
    const ext = EXTENSIONS[i % EXTENSIONS.length];
    const dir = path.join(
      CORPUS,
      `pkg${i % 40}`,
      `mod${Math.floor(i / 40) % 25}`,
      `part${Math.floor(i / 1000)}`,
    );
    if (i < 1000 || i % 40 === i % 40) mkdirSync(dir, { recursive: true });
    writeFileSync(path.join(dir, `file_${i}.${ext}`), body(i, ext));
  }
  writeFileSync(path.join(CORPUS, '.gitignore'), 'ignored/\n');
  writeFileSync(MARKER, String(FILE_COUNT));
  console.log(`generated ${FILE_COUNT} files in ${CORPUS} (${Math.round(performance.now() - started)} ms)`);
  return CORPUS;
}

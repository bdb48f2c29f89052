// Tokens (o200k, what the model reads: the default text answer) against what the shell command an agent
// would otherwise run prints for the same information (issue 13's token table), on the real corpus.
// Every comparison uses a request whose whole result fits one page, so both sides hold the same rows.
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import { RG_FLAGS, connectServer, finish, report, runRg } from './lib/harness.mjs';
import { corpusSummary, ensureCorpus } from './lib/corpus.mjs';

const run = promisify(execFile);
const corpus = ensureCorpus();
console.log(`corpus: ${corpusSummary()}`);
const server = await connectServer(corpus);
const tokens = (text) => countTokens(text, { disallowedSpecial: new Set() });
/** rg prints ./ before paths when given `.`; an agent runs it without a path (no ./). */
const bare = (out) => out.replace(/^\.\//gm, '');

async function answer(tool, args) {
  const result = await server.call(tool, args);
  // Text answers say "# next_cursor: …" on a line of their own; TOON/JSON ones carry next_cursor.
  if (result.structured?.next_cursor || /^# next_cursor: /m.test(result.text))
    throw new Error(`${tool} ${JSON.stringify(args)} needs several pages`);
  return result;
}

function ratioRow(label, ours, theirs, target, detail = '') {
  const ratio = ours / theirs;
  report(
    label,
    `${ours} vs ${theirs} tokens → ${ratio.toFixed(2)}× (target ≤ ${target}×)${detail}`,
    ratio <= target,
  );
  return ratio;
}

// search_content, default answer vs `rg -n` (same query, same files), and grouped vs `rg -n --heading`.
const SEARCHES = [
  { query: 'ZeroDivisionError', glob: '*.py' },
  { query: 'getaddrinfo', glob: '*.{h,py}' },
  { query: 'WeakRef', glob: '*.ts' },
];
for (const { query, glob } of SEARCHES) {
  const flat = await answer('search_content', { query, include_globs: [glob] });
  const rgFlat = bare(
    await runRg(['-n', ...RG_FLAGS, '--smart-case', '--sort', 'path', '-g', glob, '-e', query, '.'], corpus),
  );
  ratioRow(`search_content "${query}" (${glob}) vs rg -n`, tokens(flat.text), tokens(rgFlat), 1.0);
  const grouped = await answer('search_content', { query, include_globs: [glob], group_by_file: true });
  const rgGrouped = bare(
    await runRg(
      ['-n', '--heading', ...RG_FLAGS, '--smart-case', '--sort', 'path', '-g', glob, '-e', query, '.'],
      corpus,
    ),
  );
  ratioRow(
    `search_content group_by_file "${query}" (${glob}) vs rg -n --heading`,
    tokens(grouped.text),
    tokens(rgGrouped),
    1.0,
  );
}

// list_files, default answer vs `rg --files` of the same folder.
for (const glob of ['python3.11/email/**', 'c-headers/netinet/**', 'npm/ajv@8*/node_modules/ajv/lib/**']) {
  const listing = await answer('list_files', { glob });
  const rgFiles = bare(await runRg(['--files', ...RG_FLAGS, '--sort', 'path', '-g', glob, '.'], corpus));
  ratioRow(
    `list_files ${glob} (${listing.text.split('\n').length} files) vs rg --files`,
    tokens(listing.text),
    tokens(rgFiles),
    1.2,
  );
}

// extract_code_section vs `sed -n`: at most 1.05× plus a header of at most 40 tokens.
for (const [file, from, to] of [
  ['python3.11/json/decoder.py', 1, 200],
  ['c-headers/stdio.h', 100, 300],
]) {
  const section = await answer('extract_code_section', { file_path: file, start_line: from, end_line: to });
  const { stdout } = await run('sed', ['-n', `${from},${to}p`, path.join(corpus, file)]);
  const ours = tokens(section.text);
  const theirs = tokens(stdout);
  // The answer is one header line and the lines themselves: both parts have a target of their own.
  const header = tokens(section.text.slice(0, section.text.indexOf('\n') + 1));
  const ratio = (ours - header) / theirs;
  report(
    `extract_code_section ${file}:${from}-${to} vs sed -n`,
    `${ours} vs ${theirs} tokens: lines ${ratio.toFixed(2)}× (target ≤ 1.05×), header ${header} tokens (target ≤ 40)`,
    ratio <= 1.05 && header <= 40,
  );
}

// get_code_outline: the TOON answer never above its own JSON.
for (const file of [
  'c-headers/stdio.h',
  'c-headers/zlib.h',
  'c-headers/netdb.h',
  'python3.11/json/decoder.py',
  'python3.11/argparse.py',
]) {
  const toon = await server.call('get_code_outline', { file_path: file });
  const json = await server.call('get_code_outline', { file_path: file, output_format: 'json' });
  ratioRow(`get_code_outline ${file}: TOON vs its JSON`, tokens(toon.text), tokens(json.text), 1.0);
  // The outline is there to spare reading the whole file (cat): it must stay several times cheaper.
  const { stdout: whole } = await run('cat', [path.join(corpus, file)], { maxBuffer: 1 << 26 });
  const saving = tokens(whole) / tokens(toon.text);
  report(
    `get_code_outline ${file} vs cat`,
    `${tokens(toon.text)} vs ${tokens(whole)} tokens → ${saving.toFixed(1)}× cheaper (target ≥ 5×)`,
    saving >= 5,
  );
}

// For the record (the earlier, superseded measure): TOON vs compact JSON of the same list_files value.
const page = await answer('list_files', { glob: 'python3.11/email/**', output_format: 'json' });
const { formatOutput } = await import('@mcp-workbench/core');
const sameToon = tokens(formatOutput(page.structured, 'toon', { delimiter: '\t' }));
const sameJson = tokens(JSON.stringify(page.structured));
console.log(
  `info  list_files, identical value: TOON ${sameToon} vs compact JSON ${sameJson} tokens (${((1 - sameToon / sameJson) * 100).toFixed(0)} % fewer)`,
);

await server.close();
finish();

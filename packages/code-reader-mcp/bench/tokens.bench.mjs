// o200k tokens of TOON vs compact JSON answers (target: TOON ≥ 30 % fewer) for list_files and
// grouped search results, measured on the same answers.
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import { connectServer, finish, report } from './lib/harness.mjs';
import { ensureCorpus } from './lib/corpus.mjs';

const corpus = ensureCorpus();
const server = await connectServer(corpus);
const budget = { max_answer_tokens: 20_000 };

async function compare(label, tool, args) {
  const toon = await server.call(tool, { ...args, ...budget });
  // The JSON answer of the same rows: ask JSON for exactly what the TOON page held.
  const json = await server.call(tool, { ...args, ...budget, output_format: 'json' });
  const rowsOf = (structured) => structured.files ?? structured.matches ?? [];
  const toonRows = rowsOf(toon.structured).length;
  const jsonRows = rowsOf(json.structured).length;
  // Pages differ in size (JSON fits fewer rows); compare tokens per row of the same kind.
  const toonTokens = countTokens(toon.text);
  const jsonTokens = countTokens(json.text);
  const perRowToon = toonTokens / Math.max(1, toonRows);
  const perRowJson = jsonTokens / Math.max(1, jsonRows);
  const saving = 1 - perRowToon / perRowJson;
  report(
    label,
    `TOON ${toonTokens} tokens / ${toonRows} rows = ${perRowToon.toFixed(1)} per row; JSON ${jsonTokens} / ${jsonRows} = ${perRowJson.toFixed(1)} per row → ${(saving * 100).toFixed(0)} % fewer (target ≥ 30 %)`,
    saving >= 0.3,
  );
}

await compare('list_files rows', 'list_files', { glob: 'pkg1/**', limit: 400 });
// Grouping pays off when files hold several matches (the usual case for a code search).
await compare('search_content group_by_file (several matches per file)', 'search_content', {
  query: 'compute\\(',
  group_by_file: true,
  max_count: 300,
});

// The same value both ways (no paging difference): a 200-row list_files page encoded twice.
const page = await server.call('list_files', {
  glob: 'pkg2/**',
  limit: 200,
  output_format: 'json',
  ...budget,
});
const { formatOutput } = await import('@mcp-workbench/core');
// For the record: TOON's own benchmarks compare against indented JSON, where the same values save more.
function againstPretty(label, toonTokens, value) {
  const pretty = countTokens(JSON.stringify(value, null, 2));
  console.log(
    `info  ${label}, identical value: TOON ${toonTokens} vs indented JSON ${pretty} tokens (${((1 - toonTokens / pretty) * 100).toFixed(0)} % fewer)`,
  );
}
// list_files answers use TOON's tab delimiter (see src/tools/list-files.ts); the comma is shown for the record.
const same = countTokens(formatOutput(page.structured, 'toon', { delimiter: '\t' }));
const sameComma = countTokens(formatOutput(page.structured, 'toon'));
const sameJson = countTokens(JSON.stringify(page.structured));
report(
  'list_files, identical value',
  `TOON ${same} vs JSON ${sameJson} tokens → ${((1 - same / sameJson) * 100).toFixed(0)} % fewer`,
  same <= sameJson * 0.7,
);
console.log(
  `info  list_files, identical value with a comma delimiter: TOON ${sameComma} tokens (${((1 - sameComma / sameJson) * 100).toFixed(0)} % fewer)`,
);
againstPretty('list_files', same, page.structured);
const grouped = await server.call('search_content', {
  query: 'value1[0-9] =',
  group_by_file: true,
  max_count: 150,
  output_format: 'json',
  ...budget,
});
const gToon = countTokens(formatOutput(grouped.structured, 'toon'));
const gJson = countTokens(JSON.stringify(grouped.structured));
report(
  'search group_by_file, identical value',
  `TOON ${gToon} vs JSON ${gJson} tokens → ${((1 - gToon / gJson) * 100).toFixed(0)} % fewer`,
  gToon <= gJson * 0.7,
);
againstPretty('search group_by_file', gToon, grouped.structured);
// For the record: the ceiling if the TOON answer dropped `column` and leading whitespace (it does not).
const lean = {
  ...grouped.structured,
  files: grouped.structured.files.map((f) => ({
    ...f,
    matches: f.matches.map(({ line, text }) => ({ line, text: text.trim() })),
  })),
};
const leanToon = countTokens(formatOutput(lean, 'toon'));
console.log(
  `info  search group_by_file without column and indentation: TOON ${leanToon} vs JSON ${gJson} tokens (${((1 - leanToon / gJson) * 100).toFixed(0)} % fewer)`,
);

// For the record: with one match per file, grouping gains little in either format.
const single = await server.call('search_content', {
  query: 'section 20:',
  group_by_file: true,
  max_count: 150,
  output_format: 'json',
  ...budget,
});
const sToon = countTokens(formatOutput(single.structured, 'toon'));
const sJson = countTokens(JSON.stringify(single.structured));
console.log(
  `info  search group_by_file with one match per file: TOON ${sToon} vs JSON ${sJson} tokens (${((1 - sToon / sJson) * 100).toFixed(0)} % fewer)`,
);

await server.close();
finish();

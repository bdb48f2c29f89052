// get_code_outline against Universal Ctags (issue 25: outlines that find what ctags finds): on
// @types/node, libstdc++'s bits/, nlohmann's json.hpp, Go's net/http and Python's asyncio, the outline
// must list ≥ 95 % of the classes and functions ctags finds (Debian's universal-ctags, default kinds),
// and nothing that is not one: every class, method and function row must be a tag ctags knows (with
// prototypes and the other declaration kinds turned on) of the same name, on a line the row covers, or
// (where ctags' parser gives up) a declaration of that name in the source (bench/lib/outline-vs-ctags.mjs).
// Trees missing here are skipped with a note (Debian: golang-go, libstdc++-12-dev, nlohmann-json3-dev).
// `CODE_READER_OUTLINE_MISSES=N` prints N missed and N extra names per tree.
import path from 'node:path';
import { connectServer, finish, report } from './lib/harness.mjs';
import { TREES, compareTree, hasUniversalCtags, outlineRows } from './lib/outline-vs-ctags.mjs';

const TARGET = 0.95;
const SHOW = Number(process.env.CODE_READER_OUTLINE_MISSES ?? 5);

if (!hasUniversalCtags()) {
  console.log('SKIP  every tree: universal-ctags is not installed (Debian: apt-get install universal-ctags)');
  process.exit(0);
}
let missingTrees = 0;
for (const tree of TREES) {
  const files = tree.root ? tree.files(tree.root) : [];
  if (files.length === 0) {
    missingTrees++;
    console.log(`SKIP  ${tree.name}: not on this machine (${tree.root ?? 'no such tree'})`);
    continue;
  }
  const server = await connectServer(tree.root);
  const { found, total, rowsChecked, checkedOnSource, misses, extras } = await compareTree(
    tree,
    files,
    (file) => outlineRows(server, path.relative(tree.root, file)),
  );
  await server.close();
  const recall = total === 0 ? 1 : found / total;
  report(
    `outline vs ctags, ${tree.name} (${files.length} files)`,
    `${found} of ${total} classes and functions (${(recall * 100).toFixed(1)} %, target ≥ ${TARGET * 100} %); ` +
      `${extras.length} of ${rowsChecked} rows are no declaration (target 0; ${checkedOnSource} that ctags has no tag for were checked on the source)`,
    recall >= TARGET && extras.length === 0,
  );
  if (SHOW > 0) {
    for (const miss of misses.slice(0, SHOW)) console.log(`      missed ${miss}`);
    for (const extra of extras.slice(0, SHOW)) console.log(`      extra  ${extra}`);
  }
}
if (missingTrees > 0) console.log(`${missingTrees} tree(s) skipped: install them for the full comparison.`);
finish();

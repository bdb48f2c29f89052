// Recall of pgvector's HNSW index against exact search, on a loaded benchmark schema:
//   BENCH_KEEP=1 PRISMIND_BENCH_DATABASE_URL=… pnpm bench store   (prints the kept schema)
//   node bench/hnsw-recall.mjs postgres://… bench_1234 [m ef_construction]
// For the benchmark's queries and 50 of the stored texts, the share of the exact 10 (and 100) nearest
// knowledge vectors that the index finds with the server's settings (ef_search 100, iterative scan).
// With m and ef_construction, the index is first rebuilt with them (the build time is printed).
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { KNOWLEDGE_QUERIES, knowledgeText } from './corpus.mjs';

const DIST = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../dist');
const { foldedGramVector } = await import(path.join(DIST, 'store/postgres/vectors.js'));
const [url, schema, m, efConstruction] = process.argv.slice(2);
if (!url || !/^[a-z_][a-z0-9_]*$/.test(schema ?? '')) {
  console.error('usage: node bench/hnsw-recall.mjs postgres://… <schema> [m ef_construction]');
  process.exit(2);
}
const client = new pg.Client({ connectionString: url });
await client.connect();
const { rows: ext } = await client.query(
  `SELECT n.nspname FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace WHERE e.extname = 'vector'`,
);
const vector = `"${ext[0].nspname}"`;
const table = `"${schema}".knowledge_vec`;
if (m) {
  const started = performance.now();
  await client.query(`SET maintenance_work_mem = '1GB'`);
  await client.query(`DROP INDEX IF EXISTS "${schema}".knowledge_vec_hnsw`);
  await client.query(
    `CREATE INDEX knowledge_vec_hnsw ON ${table} USING hnsw (vec ${vector}.vector_cosine_ops) WITH (m = ${Number(m)}, ef_construction = ${Number(efConstruction)})`,
  );
  console.log(
    `index built with m=${m}, ef_construction=${efConstruction}: ${((performance.now() - started) / 1000).toFixed(1)} s`,
  );
}
const queries = [
  ...KNOWLEDGE_QUERIES,
  '設計',
  '罠',
  ...Array.from({ length: 50 }, (_, i) => knowledgeText(i * 1999)),
];
const nearest = async (vec, k, exact) => {
  await client.query('BEGIN');
  await client.query(exact ? 'SET LOCAL enable_indexscan = off' : 'SET LOCAL hnsw.ef_search = 100');
  if (!exact) await client.query('SET LOCAL hnsw.iterative_scan = relaxed_order');
  const { rows } = await client.query(
    `SELECT id FROM ${table} ORDER BY vec OPERATOR(${vector}.<=>) $1::${vector}.vector LIMIT ${k}`,
    [vec],
  );
  await client.query('COMMIT');
  return rows.map((r) => r.id);
};
for (const k of [10, 100]) {
  let found = 0;
  let wanted = 0;
  for (const q of queries) {
    const vec = foldedGramVector(q);
    const exact = await nearest(vec, k, true);
    const approx = new Set(await nearest(vec, k, false));
    wanted += exact.length;
    found += exact.filter((id) => approx.has(id)).length;
  }
  console.log(`recall@${k} over ${queries.length} queries: ${((100 * found) / wanted).toFixed(1)} %`);
}
await client.end();

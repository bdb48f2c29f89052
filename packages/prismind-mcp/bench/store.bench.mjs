// `pnpm bench`: loads 100,000 knowledge entries and 10,000 catalog documents (generated, mixed Japanese
// and English) into a fresh local store, then measures tool calls through a real MCP client and prints
// each p95 beside the issue's target with the ratio. With PRISMIND_BENCH_DATABASE_URL (a PostgreSQL the
// run may create a schema in), the same load runs on the PostgreSQL store too, the calls are measured on
// both interleaved, and each p95 is printed beside the local store's with the ratio (target: within 2×).
// Wall-clock figures measured while other work runs are noisy, so each line also gives the p95 of the CPU time the call used (client and server share
// this process), which a busy machine inflates far less.
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as delay } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { PathPolicy, silentLogger } from '@mcp-workbench/core';
import { callTool, connectInMemory } from '@mcp-workbench/core/testing';
import {
  CATEGORIES,
  documentOf,
  FIFTY_K,
  FIFTY_K_TERM,
  KNOWLEDGE_QUERIES,
  knowledgeText,
  prose,
  rng,
} from './corpus.mjs';

const DIST = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../dist');
const KNOWLEDGE = Number(process.env.BENCH_KNOWLEDGE ?? 100_000);
const DOCUMENTS = Number(process.env.BENCH_DOCUMENTS ?? 10_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 200);

const PG_URL = process.env.PRISMIND_BENCH_DATABASE_URL?.trim();

const { LocalBackend } = await import(path.join(DIST, 'store/local/local-backend.js'));
const { PostgresBackend } = await import(path.join(DIST, 'store/postgres/postgres-backend.js'));
const { extractKeywords } = await import(path.join(DIST, 'text/keywords.js'));
const { defaultConfig } = await import(path.join(DIST, 'engine/projects.js'));
const { bodyOf, folderFor, procedureName } = await import(path.join(DIST, 'model/documents.js'));
const { createServer } = await import(path.join(DIST, 'server.js'));

let failures = 0;
/** label → p95 of each store, for the side-by-side table. */
const results = new Map();
function report(label, p95, target, cpu95) {
  const ok = p95 <= target;
  if (!ok) failures++;
  console.log(
    `${ok ? 'PASS' : 'FAIL'}  ${label}: p95 ${p95.toFixed(1)} ms (target ≤ ${target} ms, ratio ${(p95 / target).toFixed(2)}; ` +
      `CPU time p95 ${cpu95.toFixed(1)} ms)`,
  );
}

function percentile(values, p) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

/** Loads the corpus into a fresh store of `kind` and measures the tool calls on it. */
async function load(kind) {
  const home = await mkdtemp(path.join(os.tmpdir(), 'prismind-bench-'));
  const schema = `bench_${process.pid}`;
  const pgUrl = PG_URL ? `${PG_URL}${PG_URL.includes('?') ? '&' : '?'}schema=${schema}` : '';
  console.log(
    `\n--- ${kind} store${kind === 'postgres' ? ` (${PG_URL.replace(/:[^:@/]*@/, '@')}, schema ${schema})` : ''}`,
  );
  try {
    // --- Load: the same store calls the tools make, in batches of one transaction each. ---------------
    const loadStarted = performance.now();
    const backend =
      kind === 'local'
        ? await LocalBackend.open({ home, busyTimeoutMs: 5000, logger: silentLogger })
        : await PostgresBackend.open({
            url: pgUrl,
            schema,
            poolSize: 5,
            pgvector: true,
            logger: silentLogger,
          });
    const at = new Date().toISOString();
    const project = defaultConfig(
      { project: 'trapxtrap', name: 'TrapxTrapCpp', description: '1v1トラップアクションゲーム' },
      at,
    );
    await backend.write(async (stores) => {
      await stores.projects.create(project);
      await stores.tracker.createSheets(project);
      await stores.projects.setCurrent('default', { project_id: 'trapxtrap', switched_at: at });
      for (let phase = 1; phase <= 8; phase++) {
        for (let task = 1; task <= 10; task++) {
          await stores.tracker.add('trapxtrap', {
            phase: `Phase ${phase}`,
            task_id: `T${String(task).padStart(2, '0')}`,
            name: `タスク${phase}-${task}`,
            status: phase < 4 ? 'completed' : phase === 4 && task < 3 ? 'in_progress' : 'not_started',
            blockers: [],
            completed_at: phase < 4 ? at : null,
            notes: '',
            priority: 'medium',
            category: 'feature',
            blocked_by: [],
            description: '',
            updated_at: at,
          });
        }
      }
    });
    // A bulk load, as migrate and import run it (PostgreSQL builds its HNSW indexes once, at the end).
    const bulk = (work) =>
      backend.bulk ? backend.bulk({ knowledge: KNOWLEDGE, documents: DOCUMENTS }, work) : work();
    let docsDone = 0;
    await bulk(async () => {
      const docBatch = 500;
      const used = new Map();
      for (let start = 0; start < DOCUMENTS; start += docBatch) {
        await backend.write(async (stores) => {
          for (let i = start; i < Math.min(DOCUMENTS, start + docBatch); i++) {
            const doc = documentOf(i);
            const folder = folderFor(project, doc.doc_type);
            const names = used.get(folder) ?? [];
            used.set(folder, names);
            const fileName =
              (doc.doc_type === '実装手順書'
                ? procedureName(doc.phase_task, doc.feature, 'Blueprint', names)
                : undefined) ?? `${doc.name}`;
            names.push(fileName);
            const body = bodyOf(doc.name, doc.content);
            const entry = {
              doc_id: `doc-bench${i}`,
              name: doc.name,
              source: kind,
              doc_type: doc.doc_type,
              project: 'trapxtrap',
              phase_task: doc.phase_task,
              feature: doc.feature,
              reference_timing: i % 50 === 0 ? 'セッション開始時' : '',
              related_docs: [],
              keywords: extractKeywords(doc.content, 8, doc.name),
              updated_at: at,
              created_by: 'bench',
              status: 'active',
              created_at: at,
              location: '',
              content_hash: '',
              keywords_generated: true,
            };
            const created = await stores.documents.create(project, {
              entry,
              folder,
              file_name: fileName,
              body,
            });
            const stored = { ...entry, location: created.location, content_hash: created.content_hash };
            await stores.catalog.put(stored);
            await stores.search.indexDocument(stored, body);
          }
        });
      }
      docsDone = performance.now();
      const knowledgeBatch = 5000;
      for (let start = 0; start < KNOWLEDGE; start += knowledgeBatch) {
        await backend.write(async (stores) => {
          for (let i = start; i < Math.min(KNOWLEDGE, start + knowledgeBatch); i++) {
            const content = knowledgeText(i);
            await stores.search.addKnowledge({
              knowledge_id: `kn-bench${i}`,
              content,
              category: CATEGORIES[i % CATEGORIES.length],
              project: i % 5 === 0 ? null : 'trapxtrap',
              tags: extractKeywords(content, 5),
              source: '',
              created_at: at,
            });
          }
        });
      }
    });
    await backend.close();
    const loadSeconds = (performance.now() - loadStarted) / 1000;
    const ok = loadSeconds <= 60;
    if (!ok) failures++;
    // Shown beside the other store, not gated: issue 12 puts PostgreSQL within 2× of the local store's
    // p95s, and the load is not one; its own target (≤ 60 s on each store) is checked here.
    results.set(`load (s)`, { ...results.get('load (s)'), [kind]: loadSeconds * 1000, ratio: false });
    console.log(
      `${ok ? 'PASS' : 'FAIL'}  load ${KNOWLEDGE.toLocaleString('en')} knowledge + ${DOCUMENTS.toLocaleString('en')} documents: ` +
        `${loadSeconds.toFixed(1)} s (documents ${((docsDone - loadStarted) / 1000).toFixed(1)} s; target ≤ 60 s, ratio ${(loadSeconds / 60).toFixed(2)})`,
    );

    // --- A real MCP client on the loaded store (the calls are measured once every store is loaded). ---
    const paths = await PathPolicy.create({ roots: [home] });
    const env = {
      PRISMIND_HOME: home,
      ...(kind === 'postgres' ? { PRISMIND_BACKEND: 'postgres', PRISMIND_DATABASE_URL: pgUrl } : {}),
    };
    const server = await createServer({ paths, env });
    const connection = await connectInMemory(server);
    return { kind, home, connection, cleanup };
  } catch (error) {
    await cleanup();
    throw error;
  }
  async function cleanup() {
    // BENCH_KEEP=1 keeps the loaded store for profiling (its path is printed).
    if (process.env.BENCH_KEEP)
      console.log(`${kind} store kept: ${home}${kind === 'postgres' ? `, schema ${schema}` : ''}`);
    else await rm(home, { recursive: true, force: true });
    if (kind === 'postgres' && !process.env.BENCH_KEEP) await dropSchema(schema);
  }
}

/**
 * Measures the tool calls on every loaded store, interleaved: round i calls each store once (the order
 * alternating), so a machine that gets busier or quieter meanwhile weighs on every store alike and the
 * ratios compare like with like.
 */
async function measureAll(stores) {
  const time = async (connection, name, args) => {
    const started = performance.now();
    const cpu = process.cpuUsage();
    const result = await callTool(connection.client, name, args);
    const ms = performance.now() - started;
    const used = process.cpuUsage(cpu);
    if (result.isError) throw new Error(`${name} failed: ${result.text}`);
    return { ms, cpu: (used.user + used.system) / 1000, result };
  };
  /**
   * `rounds` calls of each store (after `warmup`), interleaved. `check` looks at each answer (a row that
   * must find something); `ratio: false` keeps a row out of the PostgreSQL-within-2× gate (rows whose
   * target is absolute only); `memory` reports how far the process's RSS rose above its level before.
   */
  const measure = async (label, target, argsOf, name, options = {}) => {
    const { rounds = ROUNDS, warmup = 10, check, ratio = true, memory = false } = options;
    for (let i = 0; i < warmup; i++)
      for (const store of stores) await time(store.connection, name, argsOf(i));
    const times = new Map(stores.map((store) => [store.kind, { ms: [], cpu: [] }]));
    globalThis.gc?.();
    const rssBefore = process.memoryUsage().rss;
    let rssPeak = rssBefore;
    for (let i = 0; i < rounds; i++) {
      const order = i % 2 === 0 ? stores : [...stores].reverse();
      for (const store of order) {
        const measured = await time(store.connection, name, argsOf(warmup + i));
        check?.(measured.result, store.kind);
        times.get(store.kind).ms.push(measured.ms);
        times.get(store.kind).cpu.push(measured.cpu);
        rssPeak = Math.max(rssPeak, process.memoryUsage().rss);
      }
    }
    for (const store of stores) {
      const { ms, cpu } = times.get(store.kind);
      report(
        `${store.kind}: ${label} (${rounds} calls, p50 ${percentile(ms, 50).toFixed(1)} ms)`,
        percentile(ms, 95),
        target,
        percentile(cpu, 95),
      );
      results.set(label, {
        ...results.get(label),
        ratio,
        [store.kind]: percentile(ms, 95),
        [`${store.kind}_cpu`]: percentile(cpu, 95),
      });
    }
    if (memory)
      console.log(
        `INFO  ${label}: process RSS ${(rssBefore / 1e6).toFixed(0)} MB before, at most ${(rssPeak / 1e6).toFixed(0)} MB during (+${((rssPeak - rssBefore) / 1e6).toFixed(0)} MB)`,
      );
  };
  console.log(
    `\n--- tool calls (load average ${os
      .loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')})`,
  );
  const knowledgeQueries = KNOWLEDGE_QUERIES;
  await measure(
    'search_knowledge, mixed queries',
    30,
    (i) => ({ query: knowledgeQueries[i % knowledgeQueries.length] }),
    'search_knowledge',
  );
  const twoChar = ['設計', '罠', '影', '入力'];
  await measure(
    'search_knowledge, 1–2 character Japanese',
    30,
    (i) => ({ query: twoChar[i % twoChar.length] }),
    'search_knowledge',
  );
  await measure(
    'search_knowledge with filters',
    30,
    (i) => ({
      query: knowledgeQueries[i % knowledgeQueries.length],
      category: CATEGORIES[i % 4],
      project: 'trapxtrap',
    }),
    'search_knowledge',
  );
  const catalogQueries = [
    { query: '罠' },
    { query: 'physicsSystem' },
    { query: 'ノード 設計' },
    { doc_type: '設計書', phase_task: 'P4-T01' },
    { query: 'レプリケーション', doc_type: '実装手順書' },
  ];
  const local = stores.find((store) => store.kind === 'local');
  // The first search after a start checks the size and mtime of every document file (the load
  // recorded none, so this first one also reads and hashes them all).
  const first = await time(local.connection, 'search_catalog', { query: '罠' });
  console.log(
    `INFO  local: first search_catalog after start (checks ${DOCUMENTS.toLocaleString('en')} files): ${first.ms.toFixed(0)} ms`,
  );
  await measure('search_catalog', 20, (i) => catalogQueries[i % catalogQueries.length], 'search_catalog');
  // Documents are indexed whole: a term near the end of a 50,000-character document.
  await measure(
    'search_catalog, a term near the end of a 50,000-character document',
    20,
    () => ({ query: FIFTY_K_TERM }),
    'search_catalog',
    {
      check: (result, kind) => {
        const found = result.structured.documents
          .filter((d) => d.relevance_score >= 0.5)
          .map((d) => d.doc_id);
        if (found[0] !== `doc-bench${FIFTY_K}`)
          throw new Error(`${kind}: ${FIFTY_K_TERM} not found: ${found}`);
      },
      ratio: false,
    },
  );
  await measureHandEdits(local.home, (name, args) => time(local.connection, name, args));
  await measure('start_session', 50, () => ({}), 'start_session');
  // A pasted page as a query: bounded work and memory (issue 23 item 1).
  await measure(
    'search_knowledge, a 10,000-character query',
    200,
    (i) => ({ query: prose(800_000 + (i % 10), 10_000) }),
    'search_knowledge',
    { rounds: 40, warmup: 3, ratio: false, memory: true },
  );
  // Each store gets the same new entries (rng per call index, not per call).
  await measure(
    'add_knowledge (tags generated)',
    20,
    (i) => ({
      content: `${knowledgeText(200_000 + i)} ${Math.floor(rng(7 + i)() * 1e6)}`,
      category: '技術Tips',
      project: 'trapxtrap',
    }),
    'add_knowledge',
  );
  // Last: it adds megabyte documents to the stores.
  // 1,000,000 bytes of Japanese prose (the corpus' Japanese sentences), just under the 1 MiB limit.
  let megabyte = prose(700_000, 600_000).replace(/[A-Za-z.]+ ?/g, '');
  while (Buffer.byteLength(megabyte) > 1_000_000) megabyte = megabyte.slice(0, -1000);
  await measure(
    'create_document, 1 MB of Japanese',
    2000,
    (i) => ({
      name: `大きな設計書${i}`,
      doc_type: '設計書',
      content: `${i}${megabyte.slice(String(i).length)}`,
      phase_task: '共通',
    }),
    'create_document',
    { rounds: 5, warmup: 1, ratio: false, memory: true },
  );
  console.log(
    `(load average after: ${os
      .loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')})`,
  );
}

/** search_catalog right after a person edited a document file (the watcher has reported it). */
async function measureHandEdits(home, time) {
  const dir = path.join(home, 'Projects');
  const files = (await readdir(dir, { recursive: true })).filter(
    (f) => f.includes('設計書') && f.endsWith('.md'),
  );
  const times = [];
  const cpu = [];
  for (let i = 0; i < 40; i++) {
    const file = path.join(dir, files[(i * 11) % files.length]);
    const word = `手編集${[...String(i)].map((d) => '〇一二三四五六七八九'[Number(d)]).join('')}号`;
    // At the end of the body: documents are indexed whole.
    const text = await readFile(file, 'utf8');
    await writeFile(file, `${text.trimEnd()}\n\n${word}\n`);
    await delay(30);
    const measured = await time('search_catalog', { query: word });
    if (!measured.result.text.includes(`"name":"${path.basename(file, '.md')}"`))
      throw new Error(`the hand edit ${i} (${file}) was not found: ${measured.result.text.slice(0, 300)}`);
    times.push(measured.ms);
    cpu.push(measured.cpu);
  }
  report(
    `local: search_catalog after a hand edit (40 calls, p50 ${percentile(times, 50).toFixed(1)} ms)`,
    percentile(times, 95),
    20,
    percentile(cpu, 95),
  );
}

async function dropSchema(schema) {
  const { default: pg } = await import('pg');
  const client = new pg.Client({ connectionString: PG_URL });
  await client.connect();
  await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  await client.end();
}

const stores = [await load('local')];
try {
  if (PG_URL) stores.push(await load('postgres'));
  await measureAll(stores);
} finally {
  for (const store of stores) {
    await store.connection.close();
    await store.cleanup();
  }
}
if (PG_URL) {
  // Side by side: PostgreSQL's p95 over the local store's, each from this one run (issue 12: within 2×).
  console.log('\n--- PostgreSQL beside the local store (p95 wall; CPU time p95 in brackets)');
  for (const [label, r] of results) {
    if (r.local === undefined || r.postgres === undefined) continue;
    const ratio = r.postgres / r.local;
    const unit = label.startsWith('load') ? 1000 : 1;
    const fmt = (v, c) =>
      `${(v / unit).toFixed(1)}${label.startsWith('load') ? ' s' : ' ms'}${c === undefined ? '' : ` [${c.toFixed(1)}]`}`;
    // Rows with only an absolute target (the load, the new rows of issue 23) are shown, not gated.
    const gated = r.ratio !== false;
    const ok = !gated || ratio <= 2;
    if (!ok) failures++;
    console.log(
      `${gated ? (ok ? 'PASS' : 'FAIL') : 'INFO'}  ${label}: postgres ${fmt(r.postgres, r.postgres_cpu)} vs local ${fmt(r.local, r.local_cpu)}, ratio ${ratio.toFixed(2)}${gated ? ' (target ≤ 2)' : ''}`,
    );
  }
} else {
  console.log('\n(PRISMIND_BENCH_DATABASE_URL not set: the PostgreSQL store is not measured.)');
}

process.exitCode = failures === 0 ? 0 : 1;

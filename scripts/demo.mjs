#!/usr/bin/env node
// `pnpm demo`: starts every server's built bin over stdio, drives it with a real MCP client through a
// short, realistic session on the sample material in examples/, and prints what each tool returned.
// Servers that are not in the repository are simply not listed.
import { cp, mkdtemp, rm } from 'node:fs/promises';
import { existsSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { callTool, spawnStdioClient } from '../packages/core/dist/testing/index.js';
import { reviewDemo } from './demo-md-review.mjs';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const MAX_LINES = Number(process.env.DEMO_MAX_LINES ?? 24);

/** A scenario per server: where its root is, and the calls an agent would make, in order. */
const scenarios = [
  {
    server: 'exstruct-mcp',
    // Work on a copy so the demo never writes into the repository.
    root: async () => {
      const dir = await mkdtemp(path.join(os.tmpdir(), 'exstruct-demo-'));
      await cp(path.join(repo, 'examples', 'workbooks'), dir, { recursive: true });
      return dir;
    },
    cleanup: (dir) => rm(dir, { recursive: true, force: true }),
    steps: [
      { tool: 'exstruct_get_runtime_info', args: {} },
      { tool: 'exstruct_validate_input', args: { xlsx_path: 'sales-report.xlsx' } },
      {
        tool: 'exstruct_extract',
        args: { xlsx_path: 'sales-report.xlsx', mode: 'standard', format: 'json', out_dir: 'out' },
      },
      {
        tool: 'exstruct_read_json_chunk',
        args: (seen) => ({ out_path: seen.exstruct_extract.out_path, sheet: 'Sheet1', max_bytes: 4000 }),
      },
      {
        tool: 'exstruct_read_range',
        args: (seen) => ({ out_path: seen.exstruct_extract.out_path, sheet: 'Sheet1', range: 'B3:E5' }),
      },
      {
        tool: 'exstruct_patch',
        note: 'dry run: nothing is written, the diff and the inverse ops come back',
        args: {
          xlsx_path: 'sales-report.xlsx',
          dry_run: true,
          return_inverse_ops: true,
          ops: [
            { op: 'set_value', sheet: 'Sheet1', cell: 'C4', value: 125 },
            { op: 'add_sheet', sheet: 'Summary' },
            { op: 'set_formula', sheet: 'Summary', cell: 'A1', formula: '=SUM(Sheet1!C4:C9)' },
          ],
        },
      },
      {
        tool: 'exstruct_patch',
        args: {
          xlsx_path: 'sales-report.xlsx',
          out_dir: 'out',
          ops: [{ op: 'set_value', sheet: 'Sheet1', cell: 'C4', value: 125 }],
        },
      },
      {
        tool: 'exstruct_capture_sheet_images',
        note: 'the sheet as Excel shows it, drawn without Excel: examples/workbooks/images/ keeps these PNGs',
        args: { xlsx_path: 'sales-report.xlsx', dpi: 96 },
      },
      {
        tool: 'exstruct_capture_sheet_images',
        args: { xlsx_path: 'flowchart.xlsx', dpi: 96 },
      },
      {
        tool: 'exstruct_validate_input',
        note: 'a path outside the roots is refused with a stable code',
        expectError: 'PATH_OUTSIDE_ROOT',
        args: { xlsx_path: '../../etc/passwd' },
      },
    ],
  },
  {
    server: 'code-reader-mcp',
    root: async () => path.join(repo, 'examples', 'code'),
    steps: [
      { tool: 'list_files', args: {} },
      { tool: 'search_content', args: { query: 'TODO', context_after: 1 } },
      {
        tool: 'extract_code_section',
        args: {
          requests: [
            { file_path: 'src/inventory.ts', sections: [{ start_line: 28, end_line: 32, label: 'reserve' }] },
            {
              file_path: 'scripts/restock.py',
              sections: [{ start_line: 13, end_line: 19, label: 'suggest' }],
            },
          ],
        },
      },
      { tool: 'check_code_scale', args: { file_path: 'src/pricing.ts' } },
      {
        tool: 'check_code_scale',
        args: {
          file_paths: ['src/inventory.ts', 'scripts/restock.py', 'service/health.go'],
          metrics_only: true,
        },
      },
      { tool: 'get_code_outline', args: { file_path: 'service/health.go' } },
    ],
  },
  {
    server: 'md-review-mcp',
    // --no-open: nothing opens on this machine; the demo plays the person through the page's API.
    root: async () => path.join(repo, 'examples', 'markdown'),
    home: () => mkdtemp(path.join(os.tmpdir(), 'md-review-demo-')),
    flags: ['--no-open', '--wait-seconds', '60'],
    run: reviewDemo,
  },
  // prismind-mcp: a temp PRISMIND_HOME; the first server process sets up a project and works a session,
  // a second process (another day, another client) picks up where the first ended.
  ...(() => {
    let home;
    const prismindHome = async () => (home ??= await mkdtemp(path.join(os.tmpdir(), 'prismind-demo-')));
    const env = async () => ({ PRISMIND_HOME: await prismindHome() });
    return [
      {
        server: 'prismind-mcp',
        title: 'prismind-mcp, session 1',
        root: prismindHome,
        env,
        steps: [
          {
            tool: 'setup_project',
            args: { project: 'trapxtrap', name: 'TrapxTrapCpp', description: '1v1トラップアクションゲーム' },
          },
          {
            tool: 'setup_project',
            note: 'a similar project needs confirmation first (the spec case 3)',
            args: { project: 'TrapGame', name: 'TrapGame', description: 'トラップ対戦ゲーム' },
          },
          { tool: 'start_session', args: {} },
          {
            tool: 'update_progress',
            args: {
              task_id: 'P4-T01',
              status: 'in_progress',
              new_task: {
                phase: 'Phase 4',
                task_id: 'T01',
                name: 'BTノード生成',
                priority: 'high',
                category: 'feature',
              },
            },
          },
          {
            tool: 'update_progress',
            args: {
              task_id: 'T02',
              new_task: { phase: 'Phase 4', task_id: 'T02', name: 'BTノード接続', blocked_by: ['T01'] },
            },
          },
          {
            tool: 'create_document',
            args: {
              name: 'BTノード生成',
              doc_type: '実装手順書',
              phase_task: 'P4-T01',
              feature: 'BTノード生成',
              asset_type: 'Blueprint',
              content:
                '1. BTTaskNode を継承する\n2. ExecuteTask で罠の発動判定を行う\n3. エディタでノードを配置する',
            },
          },
          {
            tool: 'add_knowledge',
            args: {
              content: '罠の当たり判定はトリガーボリュームで作ると、物理の揺れに左右されず安定する',
              category: '技術Tips',
              project: 'trapxtrap',
            },
          },
          { tool: 'search_knowledge', note: 'a one-character Japanese query', args: { query: '罠' } },
          {
            tool: 'update_progress',
            args: { task_id: 'P4-T01', status: 'completed', notes: '手順書どおりに実装' },
          },
          {
            tool: 'end_session',
            args: {
              summary: 'BTノード生成を実装し手順書を作成',
              next_action: 'T02 BTノード接続に着手',
              notes: 'UE5.7 で確認',
            },
          },
        ],
      },
      {
        server: 'prismind-mcp',
        title: 'prismind-mcp, session 2 (a new server process on the same store)',
        root: prismindHome,
        env,
        cleanup: async () => {
          if (home) await rm(home, { recursive: true, force: true });
        },
        steps: [
          { tool: 'start_session', args: {} },
          { tool: 'get_document', args: { query: 'BTノード生成の実装手順書' } },
          { tool: 'get_progress', args: { include_completed: true } },
        ],
      },
    ];
  })(),
];

function show(text) {
  let body = text;
  if (body.startsWith('{')) {
    try {
      body = JSON.stringify(JSON.parse(body), null, 2); // compact JSON on the wire, readable here
    } catch {
      // not JSON after all: print as is
    }
  }
  const lines = body.split('\n');
  const shown = lines
    .slice(0, MAX_LINES)
    .map((line) => `    ${line.length > 160 ? `${line.slice(0, 157)}...` : line}`);
  if (lines.length > MAX_LINES) shown.push(`    … ${lines.length - MAX_LINES} more lines`);
  return shown.join('\n');
}

let failures = 0;
for (const scenario of scenarios) {
  // The bin the published package declares (what `npx -y <server>` runs).
  const packageDir = path.join(repo, 'packages', scenario.server);
  if (!existsSync(packageDir)) continue;
  const { bin: bins } = JSON.parse(readFileSync(path.join(packageDir, 'package.json'), 'utf8'));
  const bin = path.join(packageDir, bins[scenario.server]);
  const root = await scenario.root();
  console.log(
    `\n━━━ ${scenario.title ?? scenario.server} (root: ${path.relative(repo, root).startsWith('..') ? root : path.relative(repo, root)})`,
  );
  const home = await scenario.home?.();
  const env = { ...(home ? { MD_REVIEW_HOME: home } : {}), ...(scenario.env ? await scenario.env() : {}) };
  const session = await spawnStdioClient(
    process.execPath,
    [bin, '--root', root, '--log-level', 'warn', ...(scenario.flags ?? [])],
    Object.keys(env).length > 0 ? { env } : {},
  );
  try {
    const { tools } = await session.client.listTools();
    const available = new Set(tools.map((t) => t.name));
    console.log(`  tools: ${[...available].join(', ')}`);
    if (scenario.run) failures += await scenario.run(session.client, root, show, { bin, env });
    const seen = {};
    for (const step of scenario.steps ?? []) {
      if (!available.has(step.tool)) continue;
      const args = typeof step.args === 'function' ? step.args(seen) : step.args;
      console.log(`\n  → ${step.tool}(${JSON.stringify(args)})${step.note ? `  — ${step.note}` : ''}`);
      const started = performance.now();
      const out = await callTool(session.client, step.tool, args);
      const ms = (performance.now() - started).toFixed(0);
      if (out.isError) {
        const expected = step.expectError && out.error?.code === step.expectError;
        if (!expected) failures++;
        console.log(
          `  ${expected ? 'refused as expected' : 'ERROR'} (${ms} ms): ${out.error?.code}: ${out.error?.message}`,
        );
        if (out.error?.hint) console.log(`    hint: ${out.error.hint}`);
        continue;
      }
      if (step.expectError) failures++;
      seen[step.tool] = out.structured;
      console.log(`  ← ${ms} ms\n${show(out.text)}`);
    }
  } finally {
    await session.close();
    await scenario.cleanup?.(root);
    if (home) await rm(home, { recursive: true, force: true });
  }
}
console.log(
  failures === 0
    ? '\nDemo finished: every call answered as expected.'
    : `\nDemo finished with ${failures} unexpected result(s).`,
);
process.exit(failures === 0 ? 0 : 1);

// The GitHub Actions workflows: valid for @action-validator/cli (GitHub's workflow schema), the CI runs the
// README's test command on the platforms the README's table names, third-party actions are pinned by
// commit, and each job gets only the permissions it needs.
import { execFile } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it, onTestFinished } from 'vitest';
import { parse } from 'yaml';
import { repo } from './published.js';

const run = promisify(execFile);
const require = createRequire(import.meta.url);
const validator = path.join(path.dirname(require.resolve('@action-validator/cli/package.json')), 'cli.mjs');
const workflows = path.join(repo, '.github', 'workflows');

interface Step {
  uses?: string;
  run?: string;
  with?: Record<string, unknown>;
  env?: Record<string, string>;
}
interface Job {
  'runs-on': string;
  permissions?: Record<string, string>;
  strategy?: { matrix: Record<string, unknown> & { include?: Record<string, string>[] } };
  env?: Record<string, string>;
  steps: Step[];
}
interface Workflow {
  on: unknown;
  permissions?: Record<string, string>;
  jobs: Record<string, Job>;
}

async function workflowFiles(): Promise<string[]> {
  return (await readdir(workflows)).filter((f) => /\.ya?ml$/.test(f)).map((f) => path.join(workflows, f));
}

async function load(name: string): Promise<{ text: string; workflow: Workflow }> {
  const text = await readFile(path.join(workflows, name), 'utf8');
  return { text, workflow: parse(text) as Workflow };
}

/** The README's test command (the line .ci/run reads and runs). */
async function readmeTestCommand(): Promise<string> {
  const readme = await readFile(path.join(repo, 'README.md'), 'utf8');
  const command = readme.split('\n').find((line) => /^npx -y pnpm@[0-9.]+ test$/.test(line));
  expect(command, 'README.md gives an `npx -y pnpm@X test` line').toBeDefined();
  return command!;
}

describe('GitHub Actions workflows', () => {
  it('every workflow is valid for @action-validator/cli, which refuses a broken one', async () => {
    const files = await workflowFiles();
    expect(files.map((f) => path.basename(f)).sort()).toEqual(['ci.yml', 'release.yml']);
    for (const file of files) {
      const result = await run(process.execPath, [validator, file]).catch(
        (error: { stderr: string }) => error,
      );
      expect('stderr' in result ? result.stderr : '', path.basename(file)).toBe('');
    }
    // The same CI workflow with a job that has no runner and a step with an unknown key.
    const dir = await mkdtemp(path.join(os.tmpdir(), 'workflow-'));
    onTestFinished(() => rm(dir, { recursive: true, force: true }));
    const broken = path.join(dir, 'broken.yml');
    const { text } = await load('ci.yml');
    await writeFile(broken, text.replace('runs-on: ubuntu-24.04', 'run-on: ubuntu-24.04'));
    await expect(run(process.execPath, [validator, broken])).rejects.toThrow();
  });

  it("CI runs the README's test command on Linux under Node 20 and 24, and builds and tests on macOS and Windows", async () => {
    const command = await readmeTestCommand();
    const { workflow } = await load('ci.yml');
    const linux = Object.values(workflow.jobs).find((job) =>
      job.steps.some((step) => step.run?.split('\n').some((line) => line.trim() === command)),
    );
    expect(linux, `a CI job runs "${command}"`).toBeDefined();
    expect(linux!['runs-on']).toMatch(/^ubuntu-/);
    expect(linux!.strategy?.matrix.node).toEqual(['20', '24']);
    // What .ci/run requires there is required here too.
    const ciRun = await readFile(path.join(repo, '.ci', 'run'), 'utf8');
    const required = [...ciRun.matchAll(/export ([A-Z_]*REQUIRE[A-Z_]*)=1/g)].map((m) => m[1]!);
    const sourced = ciRun.includes('ci-postgres.sh') ? ['PRISMIND_REQUIRE_POSTGRES'] : [];
    expect(Object.keys(linux!.env ?? {})).toEqual(expect.arrayContaining([...required, ...sourced]));
    const others = workflow.jobs['other-platforms']!;
    expect(others.strategy!.matrix.include!.map((m) => m.os!.split('-')[0])).toEqual(['macos', 'windows']);
    expect(others.steps.some((s) => /turbo run test\b/.test(s.run ?? ''))).toBe(true);
    expect(workflow.on).toMatchObject({ push: { branches: ['main'] }, pull_request: null });
  });

  it('pins every third-party action to a full commit SHA with its version beside it', async () => {
    for (const file of await workflowFiles()) {
      const text = await readFile(file, 'utf8');
      const uses = [...text.matchAll(/uses:\s*(\S+)(.*)$/gm)];
      expect(uses.length).toBeGreaterThan(0);
      for (const [, ref, rest] of uses) {
        if (ref!.startsWith('./')) continue;
        expect(ref, path.basename(file)).toMatch(/^[\w.-]+\/[\w./-]+@[0-9a-f]{40}$/);
        expect(rest, `${ref}: a "# vX.Y.Z" comment`).toMatch(/^\s+# v\d+\.\d+\.\d+/);
      }
    }
  });

  it('grants nothing by default and each job only what it needs', async () => {
    const ci = (await load('ci.yml')).workflow;
    expect(ci.permissions).toEqual({ contents: 'read' });
    for (const job of Object.values(ci.jobs)) expect(job.permissions).toBeUndefined();
    const release = (await load('release.yml')).workflow;
    expect(release.permissions).toEqual({});
    const granted = Object.fromEntries(
      Object.entries(release.jobs).map(([name, job]) => [name, job.permissions]),
    );
    expect(granted).toEqual({
      release: { contents: 'write', 'pull-requests': 'write', 'id-token': 'write' },
      bundles: { contents: 'read' },
      desktop: { contents: 'read' },
      assets: { contents: 'write' },
      registry: { contents: 'read', 'id-token': 'write' },
    });
    // Only the job that pushes keeps the checkout's credentials.
    for (const [name, job] of [...Object.entries(ci.jobs), ...Object.entries(release.jobs)]) {
      for (const step of job.steps.filter((s) => s.uses?.startsWith('actions/checkout@'))) {
        if (name !== 'release') expect(step.with?.['persist-credentials'], name).toBe(false);
      }
    }
  });

  it('releases with changesets: version step with the server.json sync, publish with provenance, then bundles and the registry', async () => {
    const { workflow } = await load('release.yml');
    const root = JSON.parse(await readFile(path.join(repo, 'package.json'), 'utf8')) as {
      scripts: Record<string, string>;
    };
    const changesets = workflow.jobs.release!.steps.find((s) => s.uses?.startsWith('changesets/action@'))!;
    expect(changesets.with).toMatchObject({ version: 'pnpm version-packages', publish: 'pnpm release' });
    expect(root.scripts['version-packages']).toBe(
      'changeset version && node scripts/sync-server-versions.mjs',
    );
    expect(root.scripts.release).toMatch(/changeset publish$/);
    expect(changesets.env).toMatchObject({ npm_config_provenance: 'true' });
    const bundles = workflow.jobs.bundles!;
    expect(bundles.strategy!.matrix.include!.map((m) => m.platform)).toEqual(['linux', 'darwin', 'win32']);
    expect(bundles.steps.some((s) => s.run?.includes('pnpm@10.34.9 bundle --platform'))).toBe(true);
    expect(
      bundles.steps.some((s) => s.run?.includes('test/bundles.test.ts') && s.env?.MCPB_BUNDLES_DIR),
    ).toBe(true);
    const registry = workflow.jobs.registry!.steps.map((s) => s.run ?? '').join('\n');
    expect(registry).toContain('mcp-publisher login github-oidc');
    expect(registry).toContain('publish');
  });
});

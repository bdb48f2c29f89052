// The README's first command ends in `pnpm demo` (scripts/demo.mjs): every server through a real MCP
// client on the bundled samples. It once broke unseen when md-review stopped giving the agent the
// person's link; this runs it as a user would, against the built servers of this checkout.
import { execFile } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const repo = fileURLToPath(new URL('../../../', import.meta.url));

describe('pnpm demo', () => {
  it('runs every server on the bundled samples and ends with every call answered as expected', async () => {
    const { stdout } = await promisify(execFile)(process.execPath, [path.join(repo, 'scripts', 'demo.mjs')], {
      cwd: repo,
      timeout: 180_000,
      maxBuffer: 16 * 1024 * 1024,
    });
    for (const server of ['exstruct-mcp', 'code-reader-mcp', 'prismind-mcp', 'md-review-mcp'])
      expect(stdout, server).toContain(`━━━ ${server}`);
    // md-review: the agent's address opens nothing; the person's link (from `md-review-mcp link`) does.
    expect(stdout).toContain("the agent's address alone: HTTP 403");
    expect(stdout).toContain('the person opens the page: rollout-plan.md, status open');
    expect(stdout.trimEnd().split('\n').at(-1)).toBe('Demo finished: every call answered as expected.');
  });
});

// Shared by the tool tests of the audit fixes: one review of docs/plan.md, started through a real MCP
// Client, and the person at the page's JSON API.
import path from 'node:path';
import { afterEach, beforeEach } from 'vitest';
import { connect, eventually, Person, workspace, type Connected } from './helpers.js';

export const KEY = 'audit-review';

export function planArgs(root: string, extra: Record<string, unknown> = {}) {
  return {
    resume_key: KEY,
    title: 'Plan review',
    root,
    files: ['docs/plan.md'],
    working_path: root,
    ...extra,
  };
}

/** Starts review_request; returns the running call and the person at the page it opened. */
export async function startReview(mcp: Connected, root: string, extra: Record<string, unknown> = {}) {
  const before = mcp.launcher.opened.length;
  const call = mcp.call('review_request', planArgs(root, extra));
  const url = await eventually(
    () => mcp.launcher.opened[before] ?? Promise.reject(new Error('not opened yet')),
  );
  return { call, person: new Person(url) };
}

export const planPath = (root: string) => path.join(root, 'docs', 'plan.md');

/** The workspace and a connected MCP Client of each test, made before it and closed after it. */
export function useAgentSession(): { ws: Awaited<ReturnType<typeof workspace>>; mcp: Connected } {
  const ctx = {} as { ws: Awaited<ReturnType<typeof workspace>>; mcp: Connected };
  beforeEach(async () => {
    ctx.ws = await workspace();
    ctx.mcp = await connect(ctx.ws.root, ctx.ws.home);
  });
  afterEach(async () => {
    await ctx.mcp.close();
    await ctx.ws.cleanup();
  });
  return ctx;
}

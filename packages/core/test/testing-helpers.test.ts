import { realpath, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createToolServer, defineTool, PathPolicy } from '../src/index.js';
import {
  callAsListed,
  cancelAtRandomMoments,
  callTool,
  connectInMemory,
  pingLatencyDuring,
  seededRandom,
  structuredAnswerProblems,
  toolListBudgetProblems,
  toolListCosts,
  type TestClient,
} from '../src/testing/index.js';
import { tempDirsRemovedAfterEach } from './temp-dirs.js';

let session: TestClient | undefined;
afterEach(async () => {
  await session?.close();
  session = undefined;
});
const tempDir = tempDirsRemovedAfterEach();

// Busy work in slices: yields between slices (a responsive tool), or not at all (a blocking one).
const spin = defineTool({
  name: 'spin',
  title: 'Spin',
  description: 'Burns CPU for ms milliseconds, in slices unless block is set.',
  annotations: { readOnlyHint: true },
  input: { ms: z.number(), block: z.boolean().default(false) },
  output: { slices: z.number() },
  async run(args, { signal }) {
    const end = performance.now() + args.ms;
    let slices = 0;
    while (performance.now() < end) {
      if (signal.aborted) throw new Error('aborted');
      if (!args.block) await new Promise((resolve) => setImmediate(resolve));
      slices++;
    }
    return { slices };
  },
});

async function start(structuredOutput = false) {
  const dir = await realpath(await tempDir('core-helpers-'));
  await writeFile(path.join(dir, 'a.txt'), 'x');
  const paths = await PathPolicy.create({ roots: [dir] });
  session = await connectInMemory(
    createToolServer({ name: 't', version: '1' }, [spin], { paths, structuredOutput }),
  );
  return session.client;
}

describe('core/testing helpers', () => {
  it('seededRandom repeats for a seed and differs between seeds', () => {
    const a = seededRandom(7);
    const b = seededRandom(7);
    const c = seededRandom(8);
    const first = [a(), a(), a()];
    expect([b(), b(), b()]).toEqual(first);
    expect(c()).not.toBe(first[0]);
    expect(first.every((x) => x >= 0 && x < 1)).toBe(true);
  });

  it('cancelAtRandomMoments cancels some calls, lets others finish, and pings after each', async () => {
    const client = await start();
    const rounds: boolean[] = [];
    const report = await cancelAtRandomMoments(
      client,
      (i) => ({ name: 'spin', arguments: { ms: i % 2 === 0 ? 200 : 1 } }),
      { times: 6, maxDelayMs: 50, seed: 1, afterEach: async ({ cancelled }) => void rounds.push(cancelled) },
    );
    expect(report.cancelled + report.answered).toBe(6);
    expect(report.cancelled).toBeGreaterThan(0);
    expect(rounds).toHaveLength(6);
  });

  it('pingLatencyDuring tells a responsive call from one that blocks the event loop', async () => {
    const client = await start();
    const free = await pingLatencyDuring(client, callTool(client, 'spin', { ms: 300 }));
    expect(free.pings).toBeGreaterThan(2);
    const blocked = await pingLatencyDuring(client, callTool(client, 'spin', { ms: 300, block: true }));
    expect(blocked.slowestPingMs).toBeGreaterThan(free.slowestPingMs);
    expect(blocked.slowestPingMs).toBeGreaterThan(200);
  });

  it('structuredAnswerProblems validates answers against the output schema, and names what is missing', async () => {
    const plain = await start(false);
    expect(
      (await structuredAnswerProblems(plain, [{ name: 'spin', arguments: { ms: 1 } }])).join('\n'),
    ).toContain('no outputSchema declared');
    await session!.close();
    const structured = await start(true);
    expect(await structuredAnswerProblems(structured, [{ name: 'spin', arguments: { ms: 1 } }])).toEqual([]);
    const failing = await structuredAnswerProblems(structured, [{ name: 'spin', arguments: { ms: 'x' } }]);
    expect(failing.join('\n')).toContain('failed');
  });
});

describe('tool-list helpers', () => {
  const words = (text: string) => text.split(/\W+/).filter(Boolean).length;

  it('toolListCosts counts name, description and input schema; the budget names each tool over it', async () => {
    const client = await start();
    const [cost] = await toolListCosts(client, words);
    const { tools } = await client.listTools();
    const tool = tools[0]!;
    expect(cost).toEqual({
      name: 'spin',
      tokens: words(tool.name) + words(tool.description!) + words(JSON.stringify(tool.inputSchema)),
    });
    expect(toolListBudgetProblems([cost!], { average: 1000, perTool: 1000 })).toEqual([]);
    expect(toolListBudgetProblems([cost!], { average: 1000, tools: { spin: 3 } })).toEqual([
      `spin: ${cost!.tokens} tokens > 3`,
    ]);
    expect(toolListBudgetProblems([cost!, { name: 'b', tokens: 600 }]).join('\n')).toContain(
      'b: 600 tokens > 500',
    );
  });

  it('callAsListed refuses arguments tools/list does not declare, or of the wrong type, before calling', async () => {
    const client = await start();
    const { tools } = await client.listTools();
    expect((await callAsListed(client, tools, 'spin', { ms: 1 })).structured).toMatchObject({});
    await expect(callAsListed(client, tools, 'spin', { ms: 1, speed: 2 })).rejects.toThrow(
      'argument speed is not declared',
    );
    await expect(callAsListed(client, tools, 'spin', { ms: 'soon' })).rejects.toThrow('must be number');
    await expect(callAsListed(client, tools, 'spin', {})).rejects.toThrow("must have required property 'ms'");
  });
});

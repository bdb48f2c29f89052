/**
 * The shape of the package, checked on its import graph: the engine speaks to the store interface only,
 * the three stores sit side by side under src/store/ and never reach into the engine or the tools, and no
 * modules import each other in a circle.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const SRC = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../src');

/** Every source file (relative to src, `/`-separated) with the source files it imports. */
function importGraph(): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  const files = readdirSync(SRC, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ts'));
  for (const file of files.map((f) => f.split(path.sep).join('/'))) {
    const text = readFileSync(path.join(SRC, file), 'utf8');
    const targets: string[] = [];
    for (const match of text.matchAll(/(?:from|import\()\s*'(\.{1,2}\/[^']+)\.js'/g)) {
      targets.push(path.posix.normalize(path.posix.join(path.posix.dirname(file), `${match[1]}.ts`)));
    }
    graph.set(file, targets);
  }
  return graph;
}

function cycles(graph: Map<string, string[]>): string[][] {
  const found: string[][] = [];
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  const visit = (file: string) => {
    state.set(file, 'open');
    stack.push(file);
    for (const next of graph.get(file) ?? []) {
      if (state.get(next) === 'open') found.push([...stack.slice(stack.indexOf(next)), next]);
      else if (!state.has(next)) visit(next);
    }
    stack.pop();
    state.set(file, 'done');
  };
  for (const file of graph.keys()) if (!state.has(file)) visit(file);
  return found;
}

describe('the import graph', () => {
  const graph = importGraph();
  const importsOf = (prefix: string) =>
    [...graph].filter(([file]) => file.startsWith(prefix)).flatMap(([file, to]) => to.map((t) => [file, t]));

  it('has the three stores side by side under src/store/', () => {
    const folders = readdirSync(path.join(SRC, 'store'), { withFileTypes: true })
      .filter((e) => e.isDirectory())
      .map((e) => e.name)
      .sort();
    expect(folders).toEqual(['google', 'local', 'postgres']);
  });

  it('lets the engine see the store interface only, and no store see the engine or the tools', () => {
    const engineToStores = importsOf('engine/').filter(
      ([, to]) => to!.startsWith('store/') && to !== 'store/backend.ts',
    );
    expect(engineToStores).toEqual([]);
    const storesUp = importsOf('store/').filter(
      ([, to]) => to!.startsWith('engine/') || to!.startsWith('tools/') || to === 'server.ts',
    );
    expect(storesUp).toEqual([]);
  });

  it('has no import cycle', () => {
    expect(cycles(graph)).toEqual([]);
  });
});

import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Language, Parser, Query, Tree } from 'web-tree-sitter';
import { ToolError } from '@mcp-workbench/core/engine';
import { SLICE_MS } from '../util/yield.js';
import { PACKAGE_ROOT } from '../version.js';
import type { LanguageId } from './languages.js';

const require = createRequire(import.meta.url);

/**
 * Where each grammar comes from: VS Code's prebuilt WASM set, and for C the official tree-sitter-c build
 * shipped in this package's grammars/ (its npm package is a native addon with an install script; see
 * grammars/README.md).
 */
const GRAMMAR_FILES: Record<LanguageId, string> = {
  typescript: '@vscode/tree-sitter-wasm/wasm/tree-sitter-typescript.wasm',
  tsx: '@vscode/tree-sitter-wasm/wasm/tree-sitter-tsx.wasm',
  javascript: '@vscode/tree-sitter-wasm/wasm/tree-sitter-javascript.wasm',
  python: '@vscode/tree-sitter-wasm/wasm/tree-sitter-python.wasm',
  java: '@vscode/tree-sitter-wasm/wasm/tree-sitter-java.wasm',
  go: '@vscode/tree-sitter-wasm/wasm/tree-sitter-go.wasm',
  rust: '@vscode/tree-sitter-wasm/wasm/tree-sitter-rust.wasm',
  c: 'grammars/tree-sitter-c.wasm',
  cpp: '@vscode/tree-sitter-wasm/wasm/tree-sitter-cpp.wasm',
  csharp: '@vscode/tree-sitter-wasm/wasm/tree-sitter-c-sharp.wasm',
  ruby: '@vscode/tree-sitter-wasm/wasm/tree-sitter-ruby.wasm',
  php: '@vscode/tree-sitter-wasm/wasm/tree-sitter-php.wasm',
  bash: '@vscode/tree-sitter-wasm/wasm/tree-sitter-bash.wasm',
};

type TreeSitter = typeof import('web-tree-sitter');

/**
 * One instance of the tree-sitter WASM module with its grammars and parsers. A trap inside the module
 * (memory access out of bounds, …) leaves its memory broken: every later call would fail the same way
 * until a restart. Such an instance is retired and the next call loads a fresh one.
 */
interface Runtime {
  ts: TreeSitter;
  grammars: Map<LanguageId, Promise<Language>>;
  parsers: Map<LanguageId, Parser>;
  retired: boolean;
  /** Parses run one at a time: a parse paused to let the event loop run is resumed by the same parser. */
  queue: Promise<void>;
}

let current: Promise<Runtime> | undefined;
let generation = 0;
/**
 * Objects of retired instances, kept alive for good: web-tree-sitter frees trees, parsers, queries and
 * cursors from a FinalizationRegistry, and a finalizer running on broken memory traps outside any call
 * (an uncaught exception). A retired instance and what it made are never collected; a few per crash.
 */
const graveyard: unknown[] = [];

function loadRuntime(): Promise<Runtime> {
  current ??= (async () => {
    // The first instance is the package itself; a fresh one after a crash is the same file imported
    // under another URL, which gives a new module (and so a new WASM instance).
    const ts: TreeSitter =
      generation === 0
        ? await import('web-tree-sitter')
        : ((await import(
            `${pathToFileURL(require.resolve('web-tree-sitter').replace(/\.cjs$/, '.js')).href}?instance=${generation}`
          )) as TreeSitter);
    await ts.Parser.init();
    return { ts, grammars: new Map(), parsers: new Map(), retired: false, queue: Promise.resolve() };
  })().catch((error: unknown) => {
    current = undefined;
    throw error;
  });
  return current;
}

// WebAssembly is a global of Node; this package's TypeScript lib settings do not declare it.
const WasmRuntimeError = (
  globalThis as unknown as { WebAssembly: { RuntimeError: abstract new (...args: never[]) => Error } }
).WebAssembly.RuntimeError;

/** True for a trap of the WASM module (its memory can no longer be trusted). */
export function isTreeSitterCrash(error: unknown): boolean {
  return error instanceof WasmRuntimeError;
}

/**
 * Retires the instance `error` came from if it is a WASM trap, keeping `objects` (trees, queries,
 * cursors of that instance) alive with it; returns the error to throw: a ToolError saying what happened
 * for a trap, else `error` itself.
 */
export function afterTreeSitterFailure(runtime: Runtime, error: unknown, ...objects: unknown[]): unknown {
  if (!isTreeSitterCrash(error)) return error;
  if (!runtime.retired) {
    runtime.retired = true;
    graveyard.push(runtime, ...runtime.parsers.values());
    generation++;
    current = undefined;
  }
  graveyard.push(...objects);
  return new ToolError(
    'INTERNAL',
    `tree-sitter failed on this input (${(error as Error).message}); its parser was restarted.`,
    {
      hint: 'Retry: later calls use a fresh parser. If this input fails again, read the file with extract_code_section instead.',
      cause: error,
    },
  );
}

/** How many tree-sitter instances were retired after a crash (for tests and logs). */
export function retiredInstances(): number {
  return generation;
}

/** A grammar's file: a package's (resolved by Node) or one of ours (under the package's folder). */
function grammarPath(id: LanguageId): string {
  const file = GRAMMAR_FILES[id];
  return file.startsWith('grammars/') ? path.join(PACKAGE_ROOT, file) : require.resolve(file);
}

async function loadLanguage(runtime: Runtime, id: LanguageId): Promise<Language> {
  let grammar = runtime.grammars.get(id);
  if (!grammar) {
    grammar = runtime.ts.Language.load(grammarPath(id)).catch((error: unknown) => {
      runtime.grammars.delete(id);
      throw new ToolError(
        'BACKEND_UNAVAILABLE',
        `The ${id} grammar could not be loaded: ${(error as Error).message}`,
        {
          hint: 'Reinstall code-reader-mcp so its tree-sitter grammar packages are complete.',
          cause: error,
        },
      );
    });
    runtime.grammars.set(id, grammar);
  }
  return grammar;
}

/**
 * Starts loading these grammars at once (each is read and compiled off the event loop), so that a
 * batch does not load them one after another as its files reach each language. Failures are left to
 * the parse that needs the grammar, which reports them.
 */
export function preloadGrammars(ids: Iterable<LanguageId>): void {
  const wanted = [...new Set(ids)];
  if (wanted.length === 0) return;
  void loadRuntime()
    .then((runtime) => Promise.all(wanted.map((id) => loadLanguage(runtime, id))))
    .catch(() => undefined);
}

/** A parsed source: its tree, and queries compiled against the same instance and grammar. */
export interface ParsedSource {
  tree: Tree;
  language: Language;
  /** Compiles a query (S-expression) for this grammar; the caller deletes it (or `fail`s with it). */
  query: (source: string) => Query;
  /**
   * Turns an error raised while using the tree into the one to throw; a WASM trap retires the
   * instance, keeping `objects` (queries, cursors made from the tree) alive with it.
   */
  fail: (error: unknown, ...objects: unknown[]) => unknown;
  /** Frees the tree (not after a trap: the tree then stays with its retired instance). */
  release: () => void;
}

/**
 * Parses source text. The caller must `release()` the result (trees live in WASM memory). One parser
 * per language is reused. A big file is parsed in slices of SLICE_MS: tree-sitter stops when its
 * progress callback says so and resumes where it stopped on the next call, so the event loop gets a
 * turn between slices (a 5 MB file no longer leaves ping unanswered for seconds). Parses take turns,
 * since a paused parse lives in its parser; a cancelled call stops at the next slice.
 */
export async function parseSource(id: LanguageId, text: string, signal?: AbortSignal): Promise<ParsedSource> {
  const runtime = await loadRuntime();
  const language = await loadLanguage(runtime, id);
  let release!: () => void;
  const previous = runtime.queue;
  runtime.queue = new Promise<void>((resolve) => (release = resolve));
  await previous;
  let tree: Tree | null = null;
  try {
    let parser = runtime.parsers.get(id);
    if (!parser) {
      parser = new runtime.ts.Parser();
      parser.setLanguage(language);
      runtime.parsers.set(id, parser);
    }
    for (;;) {
      const deadline = performance.now() + SLICE_MS;
      try {
        // Returning true from the callback stops the parse; the next parse() call resumes it.
        tree = parser.parse(text, null, { progressCallback: () => performance.now() > deadline });
      } catch (error) {
        throw afterTreeSitterFailure(runtime, error);
      }
      if (tree) break;
      await new Promise<void>((resolve) => setImmediate(resolve));
      if (signal?.aborted) {
        parser.reset();
        throw new ToolError('CANCELLED', 'The request was cancelled.');
      }
    }
  } finally {
    release();
  }
  if (!tree) throw new ToolError('INTERNAL', `tree-sitter could not parse the ${id} source.`);
  const parsed = tree;
  return {
    tree: parsed,
    language,
    query: (source) => new runtime.ts.Query(language, source),
    fail: (error, ...objects) => afterTreeSitterFailure(runtime, error, parsed, ...objects),
    release: () => {
      if (!runtime.retired) parsed.delete();
      else graveyard.push(parsed);
    },
  };
}

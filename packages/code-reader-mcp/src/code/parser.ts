import { createRequire } from 'node:module';
import { Language, Parser, type Tree } from 'web-tree-sitter';
import { ToolError } from '@mcp-workbench/core/engine';
import type { LanguageId } from './languages.js';

const require = createRequire(import.meta.url);

/** Where each grammar comes from: VS Code's prebuilt WASM set, and the official tree-sitter-c package for C. */
const GRAMMAR_FILES: Record<LanguageId, string> = {
  typescript: '@vscode/tree-sitter-wasm/wasm/tree-sitter-typescript.wasm',
  tsx: '@vscode/tree-sitter-wasm/wasm/tree-sitter-tsx.wasm',
  javascript: '@vscode/tree-sitter-wasm/wasm/tree-sitter-javascript.wasm',
  python: '@vscode/tree-sitter-wasm/wasm/tree-sitter-python.wasm',
  java: '@vscode/tree-sitter-wasm/wasm/tree-sitter-java.wasm',
  go: '@vscode/tree-sitter-wasm/wasm/tree-sitter-go.wasm',
  rust: '@vscode/tree-sitter-wasm/wasm/tree-sitter-rust.wasm',
  c: 'tree-sitter-c/tree-sitter-c.wasm',
  cpp: '@vscode/tree-sitter-wasm/wasm/tree-sitter-cpp.wasm',
  csharp: '@vscode/tree-sitter-wasm/wasm/tree-sitter-c-sharp.wasm',
  ruby: '@vscode/tree-sitter-wasm/wasm/tree-sitter-ruby.wasm',
  php: '@vscode/tree-sitter-wasm/wasm/tree-sitter-php.wasm',
  bash: '@vscode/tree-sitter-wasm/wasm/tree-sitter-bash.wasm',
};

let runtime: Promise<void> | undefined;
const grammars = new Map<LanguageId, Promise<Language>>();
const parsers = new Map<LanguageId, Parser>();

/** Loads the tree-sitter runtime and a grammar on first use only (server start stays fast). */
export async function loadLanguage(id: LanguageId): Promise<Language> {
  runtime ??= Parser.init();
  await runtime;
  let grammar = grammars.get(id);
  if (!grammar) {
    grammar = Language.load(require.resolve(GRAMMAR_FILES[id])).catch((error: unknown) => {
      grammars.delete(id);
      throw new ToolError(
        'BACKEND_UNAVAILABLE',
        `The ${id} grammar could not be loaded: ${(error as Error).message}`,
        {
          hint: 'Reinstall code-reader-mcp so its tree-sitter grammar packages are complete.',
          cause: error,
        },
      );
    });
    grammars.set(id, grammar);
  }
  return grammar;
}

/**
 * Parses source text. The caller owns the tree and must `delete()` it (trees live in WASM memory).
 * One parser per language is reused; JavaScript is single-threaded, so no two parses overlap.
 */
export async function parseSource(id: LanguageId, text: string): Promise<{ tree: Tree; language: Language }> {
  const language = await loadLanguage(id);
  let parser = parsers.get(id);
  if (!parser) {
    parser = new Parser();
    parser.setLanguage(language);
    parsers.set(id, parser);
  }
  const tree = parser.parse(text);
  if (!tree) throw new ToolError('INTERNAL', `tree-sitter could not parse the ${id} source.`);
  return { tree, language };
}

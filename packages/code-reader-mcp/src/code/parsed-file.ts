import type { Language, Query, Tree } from 'web-tree-sitter';
import { ToolError, type FileAccess } from '@mcp-workbench/core/engine';
import { ContentCache } from './analysis-cache.js';
import type { LanguageId } from './languages.js';
import { contentHash } from './metrics.js';
import { parseSource } from './parser.js';
import { readSource, type SourceFile } from './source.js';
import { Yielder } from '../util/yield.js';
import { buildStructure } from './build-structure.js';
import type { CodeStructure } from './structure.js';

/** Reads and parses a file that must be in a supported language, runs `use`, then frees the tree. */
export async function withParsedFile<T>(
  files: FileAccess,
  realPath: string,
  shownPath: string,
  use: (parsed: {
    tree: Tree;
    language: Language;
    languageId: LanguageId;
    text: string;
    /** Compiles a query for this tree (same tree-sitter instance); the caller deletes it. */
    query: (source: string) => Query;
  }) => T | Promise<T>,
  source?: SourceFile,
  signal?: AbortSignal,
): Promise<T> {
  source ??= await readSource(files, realPath, shownPath);
  if (!source.language) {
    throw new ToolError(
      'UNSUPPORTED_FORMAT',
      `No grammar for ${shownPath}; its structure cannot be parsed.`,
      {
        hint: 'Supported: TypeScript, TSX, JavaScript, Python, Java, Go, Rust, C, C++, C#, Ruby, PHP, Bash (by extension or #! line). check_code_scale still gives line metrics.',
      },
    );
  }
  const parsed = await parseSource(source.language, source.text, signal);
  try {
    return await use({
      tree: parsed.tree,
      language: parsed.language,
      languageId: source.language,
      text: source.text,
      query: parsed.query,
    });
  } catch (error) {
    throw parsed.fail(error);
  } finally {
    parsed.release();
  }
}

export interface FileStructure {
  structure: CodeStructure;
  language: LanguageId;
  totalLines: number;
  /** The syntax-error warning (as check_code_scale gives it), or none. */
  warnings: string[];
}

/**
 * Structures of files whose content has not changed: every cursor page of get_code_outline and
 * analyze_code_structure asks again, and a big file takes seconds to parse. Few entries: they are large.
 * The cached structure is shared: callers must not modify it.
 */
export const structureCache = new ContentCache<FileStructure>(16);

/** A file's structure, its language and its line count, in one parse (or from the cache). */
export async function readStructure(
  files: FileAccess,
  realPath: string,
  shownPath: string,
  signal?: AbortSignal,
): Promise<FileStructure> {
  const source = await readSource(files, realPath, shownPath);
  const hash = contentHash(source.text);
  const key = `${realPath}\0${shownPath}`; // the warning names the shown path
  const cached = structureCache.get(key, hash);
  if (cached) return { ...cached, warnings: [...cached.warnings] };
  const result = await withParsedFile(
    files,
    realPath,
    shownPath,
    async ({ tree, languageId, text }) => ({
      structure: await buildStructure(tree, text, languageId, new Yielder(signal), signal),
      language: languageId,
      totalLines: tree.rootNode.endPosition.row + (tree.rootNode.endPosition.column > 0 ? 1 : 0),
      warnings: tree.rootNode.hasError
        ? [`${shownPath} has syntax errors; the structure may be incomplete.`]
        : [],
    }),
    source,
    signal,
  );
  structureCache.set(key, hash, result);
  return { ...result, warnings: [...result.warnings] };
}

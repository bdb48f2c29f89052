import type { Language, Tree } from 'web-tree-sitter';
import { ToolError } from '@mcp-workbench/core/engine';
import type { LanguageId } from './languages.js';
import { parseSource } from './parser.js';
import { readSource } from './source.js';
import { analyzeStructure, type CodeStructure } from './structure.js';

/** Reads and parses a file that must be in a supported language, runs `use`, then frees the tree. */
export async function withParsedFile<T>(
  realPath: string,
  shownPath: string,
  use: (parsed: { tree: Tree; language: Language; languageId: LanguageId; text: string }) => T | Promise<T>,
): Promise<T> {
  const source = await readSource(realPath, shownPath);
  if (!source.language) {
    throw new ToolError(
      'UNSUPPORTED_FORMAT',
      `No grammar for ${shownPath}; its structure cannot be parsed.`,
      {
        hint: 'Supported: TypeScript, TSX, JavaScript, Python, Java, Go, Rust, C, C++, C#, Ruby, PHP, Bash (by extension or #! line). check_code_scale still gives line metrics.',
      },
    );
  }
  const { tree, language } = await parseSource(source.language, source.text);
  try {
    return await use({ tree, language, languageId: source.language, text: source.text });
  } finally {
    tree.delete();
  }
}

/** A file's structure, its language and its line count, in one parse. */
export async function readStructure(
  realPath: string,
  shownPath: string,
): Promise<{ structure: CodeStructure; language: LanguageId; totalLines: number }> {
  return withParsedFile(realPath, shownPath, ({ tree, languageId }) => ({
    structure: analyzeStructure(tree, languageId),
    language: languageId,
    totalLines: tree.rootNode.endPosition.row + (tree.rootNode.endPosition.column > 0 ? 1 : 0),
  }));
}

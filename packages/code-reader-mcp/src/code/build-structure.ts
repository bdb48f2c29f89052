import type { Tree } from 'web-tree-sitter';
import type { Yielder } from '../util/yield.js';
import {
  maskClassHeadMacros,
  maskConditionalBranches,
  maskDeclarationMacros,
  maskTrailingMacros,
} from './c-mask.js';
import { maskWrappedParameters } from './c-wrapped-params.js';
import type { LanguageId } from './languages.js';
import { parseSource } from './parser.js';
import { analyzeStructure, type CodeStructure } from './structure.js';

/** ERROR and MISSING nodes of a tree (fewer means the parser understood more of the file). */
function errorCount(tree: Tree): number {
  return tree.rootNode.hasError ? tree.rootNode.descendantsOfType(['ERROR', 'MISSING']).length + 1 : 0;
}

/**
 * The structure of a parsed file. For C and C++ the preprocessor often hides it from tree-sitter: an
 * export macro in a class head (`class DLL_API Widget {`) or branches of `#if`/`#else` that each open
 * a brace or a call, or an attribute macro after a prototype's parameters (`f (void) __THROW;`), or a
 * parameter list wrapped in a macro (`deflate OF((z_streamp strm, int flush));`). Then the text is parsed once more with those masked (see c-mask.ts), and that
 * parse gives the structure when it has fewer errors. Only the first branch of a conditional is read
 * then, as ctags does: a function defined only in an `#else` branch of a broken file is not listed.
 */
export async function buildStructure(
  tree: Tree,
  text: string,
  language: LanguageId,
  yielder: Yielder,
  signal?: AbortSignal,
): Promise<CodeStructure> {
  if (language !== 'c' && language !== 'cpp') return analyzeStructure(tree, language, yielder);
  const broken = tree.rootNode.hasError;
  let masked = maskClassHeadMacros(text);
  if (broken)
    masked = maskDeclarationMacros(
      maskTrailingMacros(maskWrappedParameters(maskConditionalBranches(masked))),
    );
  if (masked === text) return analyzeStructure(tree, language, yielder);
  const reparsed = await parseSource(language, masked, signal);
  try {
    const better = broken ? errorCount(reparsed.tree) < errorCount(tree) : !reparsed.tree.rootNode.hasError;
    return await analyzeStructure(better ? reparsed.tree : tree, language, yielder);
  } catch (error) {
    throw reparsed.fail(error);
  } finally {
    reparsed.release();
  }
}

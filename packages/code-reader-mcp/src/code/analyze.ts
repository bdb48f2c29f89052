import type { FileAccess } from '@mcp-workbench/core/engine';
import type { LanguageId } from './languages.js';
import { ContentCache } from './analysis-cache.js';
import { contentHash, lineMetricsOf, unsupportedWarning, type FileMetrics } from './metrics.js';
import { parseSource } from './parser.js';
import { readSource, type SourceFile } from './source.js';
import { countTokens } from '../tokens/counter.js';
import { Yielder } from '../util/yield.js';
import { buildStructure } from './build-structure.js';
import type { CodeStructure, FunctionInfo } from './structure.js';

export interface Analysis {
  language: LanguageId | undefined;
  metrics: FileMetrics;
  /** Undefined when metrics_only was asked or the language has no grammar. */
  structure: CodeStructure | undefined;
  warnings: string[];
}

/** Analyses of files whose content has not changed since (shared by every server in the process). */
export const analysisCache = new ContentCache<Analysis>();

/**
 * Reads, parses and measures one file. `withStructure: false` skips the structure walk (metrics
 * still use the grammar's comment nodes). A file read again with the same content comes from the cache.
 */
export async function analyzeFile(
  files: FileAccess,
  realPath: string,
  shownPath: string,
  withStructure: boolean,
  signal?: AbortSignal,
): Promise<Analysis> {
  return (await startAnalysis(files, realPath, shownPath, withStructure, signal)).analysis;
}

/** A file read and parsed (its tree freed), whose token count may still be running. */
export interface StartedAnalysis {
  /** The whole analysis, once the tokenizer's thread has counted the file. */
  analysis: Promise<Analysis>;
  /** Characters of text still waiting for their count (0 once counted or from the cache). */
  pendingChars: number;
}

/**
 * analyzeFile in two steps: this settles once the file is read, parsed and measured; `analysis`
 * then waits for its token count. A batch parses its next files meanwhile instead of waiting for the
 * tokenizer, whose first load and counts run on its own thread. `analysis` never rejects unhandled: a
 * failing count rejects it, and it is the caller's to await.
 */
export async function startAnalysis(
  files: FileAccess,
  realPath: string,
  shownPath: string,
  withStructure: boolean,
  signal?: AbortSignal,
): Promise<StartedAnalysis> {
  const source = await readSource(files, realPath, shownPath);
  const hash = contentHash(source.text);
  // The shown path is part of the answer (warnings name it); a project change shows it differently.
  const key = `${realPath}\0${shownPath}\0${withStructure}`;
  const cached = analysisCache.get(key, hash);
  if (cached) return { analysis: Promise.resolve(copy(cached)), pendingChars: 0 };
  const measured = await analyzeSource(source, shownPath, withStructure, hash, signal);
  const analysis = measured.counted.then((done) => {
    analysisCache.set(key, hash, done);
    return copy(done);
  });
  analysis.catch(() => undefined); // the caller awaits it; until then a failed count is not "unhandled"
  return { analysis, pendingChars: source.text.length };
}

/** A copy whose warnings the caller may change without touching the cached analysis. */
function copy(analysis: Analysis): Analysis {
  return { ...analysis, warnings: [...analysis.warnings] };
}

/** Parses and measures the source; `counted` adds the token count when it arrives. */
async function analyzeSource(
  source: SourceFile,
  shownPath: string,
  withStructure: boolean,
  hash: string,
  signal?: AbortSignal,
): Promise<{ counted: Promise<Analysis> }> {
  const warnings: string[] = [];
  const unsupported = unsupportedWarning(source.language, shownPath);
  if (unsupported) warnings.push(unsupported);
  // Counted on the tokenizer's thread while this one parses.
  const tokens = countTokens(source.text);
  tokens.catch(() => undefined); // awaited below; a parse failure must not leave it unhandled
  const parsed = source.language ? await parseSource(source.language, source.text, signal) : undefined;
  const tree = parsed?.tree;
  const yielder = new Yielder(signal);
  try {
    const lines = await lineMetricsOf(source.text, tree, source.language, yielder, parsed);
    const structure =
      tree && withStructure && source.language
        ? await buildStructure(tree, source.text, source.language, yielder, signal)
        : undefined;
    if (tree?.rootNode.hasError)
      warnings.push(`${shownPath} has syntax errors; the structure may be incomplete.`);
    // Wrapped: an async function's returned promise would wait for the count.
    const counted = tokens.then((count) => ({
      language: source.language,
      metrics: { ...lines, bytes: source.bytes, content_hash: hash, tokens: count },
      structure,
      warnings,
    }));
    return { counted };
  } catch (error) {
    throw parsed ? parsed.fail(error) : error;
  } finally {
    parsed?.release();
  }
}

/** The functions most worth a look: highest complexity first, then the longest. */
export function hotspots(functions: readonly FunctionInfo[], count = 5): FunctionInfo[] {
  return [...functions]
    .filter((f) => f.complexity >= 5 || f.lines >= 80)
    .sort((a, b) => b.complexity - a.complexity || b.lines - a.lines)
    .slice(0, count);
}

/** Plain advice on how to read the file without spending tokens on all of it. */
export function guidance(metrics: FileMetrics, structure: CodeStructure | undefined): string[] {
  const advice: string[] = [];
  if (metrics.tokens > 8_000) {
    advice.push(
      `Large file (${metrics.total_lines} lines, ${metrics.tokens} tokens): do not read it whole; use get_code_outline, then extract_code_section for the parts you need.`,
    );
  } else if (metrics.tokens > 2_000) {
    advice.push(
      `Medium file (${metrics.tokens} tokens): read the relevant functions with extract_code_section.`,
    );
  } else {
    advice.push(`Small file (${metrics.tokens} tokens): reading it whole is fine.`);
  }
  const hot = structure ? hotspots(structure.functions, 3) : [];
  for (const fn of hot) {
    advice.push(
      `${fn.class ? `${fn.class}.` : ''}${fn.name} (lines ${fn.start_line}-${fn.end_line}) has complexity ${fn.complexity}: review it closely.`,
    );
  }
  return advice;
}

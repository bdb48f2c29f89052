import { ToolError, defineTool, toToolError } from '@mcp-workbench/core';
import { z } from 'zod';
import { analyzeFile, guidance, hotspots, startAnalysis } from '../code/analyze.js';
import { LANGUAGES, detectLanguage } from '../code/languages.js';
import { preloadGrammars } from '../code/parser.js';
import { warmUpTokenizer } from '../tokens/counter.js';
import { unsupportedWarning } from '../code/metrics.js';
import {
  answerBudget,
  fitPage,
  fingerprint,
  hashKey,
  makeCursor,
  readCursor,
  staleCursor,
} from '../paging/budget.js';
import { pageSections } from '../paging/sections.js';
import {
  classSchema,
  fieldSchema,
  filePathInput,
  functionSchema,
  importSchema,
  mapConcurrent,
  metricsSchema,
} from './code-shared.js';
import { pathsOf, type ToolDeps } from './deps.js';
import {
  compact,
  continuation,
  continuationOutput,
  formatOf,
  limitsSchema,
  outputFormatSchema,
  pagingInput,
  render,
} from './shared.js';

export const MAX_METRICS_FILES = 200;
export const METRICS_CONCURRENCY = 4;

const batchRowSchema = z.object({
  file_path: z.string(),
  language: z.string().describe('"" when no grammar matched (line metrics only).'),
  total_lines: z.number(),
  code_lines: z.number(),
  comment_lines: z.number(),
  blank_lines: z.number(),
  bytes: z.number(),
  tokens: z.number(),
  content_hash: z.string(),
});

type BatchRow = z.infer<typeof batchRowSchema>;
type BatchError = { file_path: string; code: string; message: string };
/** One file of a batch: its row and its own warnings (not the no-grammar one), or its error. */
type Outcome =
  | { row: BatchRow; warnings: string[]; error?: undefined }
  | { row?: undefined; warnings?: undefined; error: BatchError };

/** Files named in the one no-grammar warning of a batch (the rows' language "" marks them all). */
const NAMED_FILES = 3;

const summarySchema = z.object({
  classes: z.number(),
  functions: z.number(),
  methods: z.number(),
  fields: z.number(),
  imports: z.number(),
  max_complexity: z.number(),
  avg_complexity: z.number(),
});

export function checkCodeScaleTool(deps: ToolDeps) {
  return defineTool({
    name: 'check_code_scale',
    title: 'Check code scale',
    description:
      'Size up files before reading them: lines (code/comment/blank), bytes, o200k tokens; for file_path also the ' +
      'structure summary, hotspots and how to read it cheaply. file_paths (up to 200): metrics only, a row per file.',
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    input: {
      file_path: filePathInput.optional(),
      file_paths: z.array(z.string()).min(1).optional(),
      metrics_only: z.boolean().optional(),
      include_details: z.boolean().optional().describe('list classes, functions, fields, imports'),
      include_guidance: z.boolean().optional().describe('default true'),
      output_format: outputFormatSchema,
      ...pagingInput,
    },
    output: {
      file_path: z.string().optional(),
      language: z.string().optional(),
      metrics: metricsSchema.optional(),
      structure: summarySchema.optional(),
      hotspots: z.array(functionSchema).optional(),
      classes: z.array(classSchema).optional(),
      functions: z.array(functionSchema).optional(),
      fields: z.array(fieldSchema).optional(),
      imports: z.array(importSchema).optional(),
      guidance: z.array(z.string()).optional(),
      count_files: z.number().optional(),
      files: z.array(batchRowSchema).optional(),
      totals: z
        .object({ total_lines: z.number(), code_lines: z.number(), bytes: z.number(), tokens: z.number() })
        .optional(),
      errors: z.array(z.object({ file_path: z.string(), code: z.string(), message: z.string() })).optional(),
      warnings: z.array(z.string()).optional(),
      ...continuationOutput,
      limits: limitsSchema.optional(),
    },
    textFormat: formatOf,
    async run(args, ctx) {
      if (args.file_path !== undefined && args.file_paths !== undefined) {
        throw new ToolError('INVALID_ARGUMENT', 'file_path and file_paths are mutually exclusive.', {
          hint: 'Use file_path for one file (with structure) or file_paths for a metrics-only batch.',
        });
      }
      if (args.file_paths !== undefined && args.metrics_only === false) {
        throw new ToolError(
          'INVALID_ARGUMENT',
          'file_paths gives metrics only; metrics_only cannot be false with it.',
          {
            hint: 'Drop metrics_only, or analyse files one at a time with file_path for their structure.',
          },
        );
      }
      const paths = pathsOf(ctx, deps);
      const budget = answerBudget(args.max_answer_tokens);
      const format = formatOf(args);
      const key = hashKey([
        'check_code_scale',
        { ...args, cursor: undefined, max_answer_tokens: undefined, output_format: undefined },
      ]);

      if (args.file_paths) {
        if (args.file_paths.length > MAX_METRICS_FILES) {
          throw new ToolError(
            'LIMIT_EXCEEDED',
            `file_paths has ${args.file_paths.length} files; the limit is ${MAX_METRICS_FILES}.`,
            {
              hint: `Split the list into batches of at most ${MAX_METRICS_FILES}.`,
              details: { limit: 'max_files', value: args.file_paths.length, max: MAX_METRICS_FILES },
            },
          );
        }
        // The first call of a process loads the tokenizer (~0.1 s, on its thread) and the grammars:
        // both start now, while the first files are read.
        warmUpTokenizer();
        preloadGrammars(args.file_paths.flatMap((input) => detectLanguage(input) ?? []));
        const waiting = { chars: 0 };
        const started = await mapConcurrent(args.file_paths, METRICS_CONCURRENCY, (input) =>
          measure(paths, input, ctx.signal, waiting),
        );
        const outcomes = await Promise.all(started.map((file) => file.outcome));
        const rows = outcomes.flatMap((o) => (o.row ? [o.row] : []));
        const totals = {
          total_lines: sum(rows, 'total_lines'),
          code_lines: sum(rows, 'code_lines'),
          bytes: sum(rows, 'bytes'),
          tokens: sum(rows, 'tokens'),
        };
        const noGrammar = noGrammarWarning(rows);
        // Pages run over the inputs in order: a page shows the rows, errors and warnings of its files.
        const fp = fingerprint(
          outcomes.map((o) => (o.row ? [o.row.file_path, o.row.content_hash] : o.error)),
        );
        let offset = 0;
        if (args.cursor !== undefined) {
          const cursor = readCursor(args.cursor, key);
          if (cursor.h !== fp) throw staleCursor();
          offset = cursor.o;
        }
        const limits = {
          max_files: MAX_METRICS_FILES,
          concurrency: METRICS_CONCURRENCY,
          max_answer_tokens: budget,
        };
        const shape = (page: readonly Outcome[], next: number | undefined) => {
          const errors = page.flatMap((o) => (o.error ? [o.error] : []));
          const warnings = [...(noGrammar ? [noGrammar] : []), ...page.flatMap((o) => o.warnings ?? [])];
          return compact({
            count_files: rows.length,
            files: page.flatMap((o) => (o.row ? [o.row] : [])),
            totals,
            errors: errors.length > 0 ? errors : undefined,
            warnings: warnings.length > 0 ? warnings : undefined,
            truncated: next !== undefined,
            next_cursor: next === undefined ? undefined : makeCursor(key, next, fp),
            limits,
          });
        };
        const page = await fitPage(outcomes, offset, budget, (candidate, hasMore) =>
          render(shape(candidate, hasMore ? offset + candidate.length : undefined), format),
        );
        return shape(page.rows, page.nextOffset);
      }

      if (args.file_path === undefined) {
        throw new ToolError(
          'INVALID_ARGUMENT',
          'Give file_path (one file) or file_paths (a metrics-only batch).',
          {
            hint: 'Example: {"file_path": "src/app.ts"} or {"file_paths": ["a.py", "b.py"], "metrics_only": true}.',
          },
        );
      }
      const real = await paths.resolve(args.file_path, { mustExist: true, kind: 'file' });
      const shown = paths.display(real);
      const analysis = await analyzeFile(ctx.paths, real, shown, args.metrics_only !== true, ctx.signal);
      const structure = analysis.structure;
      const complexities = structure?.functions.map((f) => f.complexity) ?? [];
      const summary = structure && {
        classes: structure.classes.length,
        functions: structure.functions.filter((f) => f.kind === 'function').length,
        methods: structure.functions.filter((f) => f.kind === 'method').length,
        fields: structure.fields.length,
        imports: structure.imports.length,
        max_complexity: complexities.length > 0 ? Math.max(...complexities) : 0,
        avg_complexity:
          complexities.length > 0 ? round(complexities.reduce((a, b) => a + b, 0) / complexities.length) : 0,
      };
      const details: Record<string, readonly unknown[]> =
        args.include_details && structure
          ? {
              classes: structure.classes,
              functions: structure.functions,
              fields: structure.fields,
              imports: structure.imports,
            }
          : {};
      const base = {
        file_path: shown,
        language: analysis.language ?? '',
        metrics: analysis.metrics,
        structure: summary,
        hotspots: structure ? hotspots(structure.functions) : undefined,
      };
      const extra = {
        guidance: args.include_guidance === false ? undefined : guidance(analysis.metrics, structure),
        warnings: analysis.warnings.length > 0 ? analysis.warnings : undefined,
      };
      return pageSections({
        sections: details,
        key,
        cursor: args.cursor,
        budget,
        build: (sections, nextCursor) =>
          compact({
            ...base,
            ...(args.include_details && structure ? sections : {}),
            ...extra,
            ...continuation(nextCursor),
          }),
        render: (value) => render(value, format),
      });
    },
  });
}

/**
 * Texts waiting for their token count are also queued to the tokenizer's thread: past this many
 * characters a file keeps its place until counted, so a batch of big files holds a few at a time.
 */
const MAX_WAITING_CHARS = 16 * 1_048_576;

/**
 * Measures one file of a batch. It returns once the file is parsed, its outcome still waiting for the
 * token count: the batch parses its next files meanwhile (the first call loads the tokenizer for
 * ~0.1 s, then counts). Wrapped in an object, as an async function's promise would wait for it; it never rejects.
 */
async function measure(
  paths: ReturnType<typeof pathsOf>,
  input: string,
  signal: AbortSignal,
  waiting: { chars: number },
): Promise<{ outcome: Promise<Outcome> }> {
  // A cancelled batch stops before the next file instead of parsing the rest for nobody.
  if (signal.aborted) throw new ToolError('CANCELLED', 'The request was cancelled.');
  const failed = (error: unknown): Outcome => {
    const failure = toToolError(error);
    return { error: { file_path: input, code: failure.code, message: failure.message } };
  };
  try {
    const real = await paths.resolve(input, { mustExist: true, kind: 'file' });
    const shown = paths.display(real);
    const started = await startAnalysis(paths.files, real, shown, false, signal);
    waiting.chars += started.pendingChars;
    const outcome = started.analysis.then((analysis): Outcome => {
      // A batch says "no grammar" once for all files (noGrammarWarning), not ~55 tokens per file.
      const own = unsupportedWarning(analysis.language, shown);
      return {
        row: { file_path: shown, language: analysis.language ?? '', ...analysis.metrics },
        warnings: analysis.warnings.filter((w) => w !== own),
      };
    }, failed);
    void outcome.finally(() => (waiting.chars -= started.pendingChars));
    if (waiting.chars > MAX_WAITING_CHARS) await outcome;
    return { outcome };
  } catch (error) {
    return { outcome: Promise.resolve(failed(error)) };
  }
}

function noGrammarWarning(rows: readonly BatchRow[]): string | undefined {
  const files = rows.filter((r) => r.language === '').map((r) => r.file_path);
  if (files.length === 0) return undefined;
  const more = files.length > NAMED_FILES ? ` and ${files.length - NAMED_FILES} more` : '';
  return (
    `${files.length} of ${rows.length} files have no grammar (language ""): line metrics only, comment lines ` +
    `counted as code. ${files.slice(0, NAMED_FILES).join(', ')}${more}. Grammars: ${LANGUAGES.join(', ')}.`
  );
}

function sum(rows: readonly BatchRow[], field: 'total_lines' | 'code_lines' | 'bytes' | 'tokens'): number {
  return rows.reduce((total, row) => total + row[field], 0);
}

function round(value: number): number {
  return Math.round(value * 100) / 100;
}

import { ToolError, defineTool, reply, toToolError } from '@mcp-workbench/core';
import { createHash } from 'node:crypto';
import { z } from 'zod';
import { extractSections, type ResolvedRequest, type SectionSpec } from '../extract/extract.js';
import { EXTRACT_LIMITS } from '../extract/limits.js';
import { toRows, isErrorRow, type AnswerRow } from '../extract/pages.js';
import { errorSummary, groupRows, type SectionFormat } from '../extract/answer.js';
import {
  answerBudget,
  fingerprint,
  fitPage,
  hashKey,
  makeCursor,
  readCursor,
  staleCursor,
} from '../paging/budget.js';
import { countEach, countTokens, warmUpTokenizer } from '../tokens/counter.js';
import { pathsOf, type ToolDeps } from './deps.js';
import { extractText } from './extract-text.js';
import { compact, formatOf, limitsSchema, outputFormatSchema, pagingInput, render } from './shared.js';

const line = z.number().int().min(1);

const sectionSchema = z.object({
  start_line: line,
  end_line: line.optional(),
  start_column: line.optional(),
  end_column: line.optional(),
  label: z.string().optional(),
});

const requestSchema = z.object({
  file_path: z.string(),
  sections: z.array(sectionSchema).min(1),
});

const sectionOut = z.object({
  label: z.string().optional(),
  start_line: z.number().optional(),
  end_line: z.number().optional(),
  content: z.string().optional(),
  lines: z.array(z.object({ line: z.number(), text: z.string() })).optional(),
  start_column: z.number().optional(),
  end_column: z.number().optional(),
  truncated: z.boolean().optional(),
  part: z.string().optional(),
});

const fileErrorOut = z.object({
  section: z.number().optional(),
  label: z.string().optional(),
  code: z.string(),
  message: z.string(),
});

const errorOut = fileErrorOut.extend({ file_path: z.string() });

const resultOut = z.object({
  file_path: z.string().describe('As requested.'),
  resolved_path: z.string().optional().describe('The file read, root/project-relative; absent when none.'),
  sections: z.array(sectionOut),
  errors: z.array(fileErrorOut).optional(),
});

const SINGLE_FIELDS = ['file_path', 'start_line', 'end_line', 'start_column', 'end_column'] as const;

export function extractCodeSectionTool(deps: ToolDeps) {
  return defineTool({
    name: 'extract_code_section',
    title: 'Extract code sections',
    description:
      'Read line ranges (1-based, inclusive; end_line defaults to the end of the file). One: file_path, start_line, ' +
      'end_line, optional start_column/end_column. Many: requests (not with file_path). Limits: 20 files, 50 sections ' +
      'a file, 200 in all, 5000 lines, 1 MiB; over one fails unless allow_truncate. A bad section goes to errors, the ' +
      'rest continue (fail_fast stops). Each section: a "==> path:start-end <==" line, then its lines unchanged.',
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    input: {
      file_path: z.string().optional(),
      start_line: line.optional(),
      end_line: line.optional(),
      start_column: line.optional(),
      end_column: line.optional(),
      requests: z.array(requestSchema).min(1).optional(),
      format: z.enum(['text', 'json', 'raw']).optional().describe('json: numbered lines; raw: content only'),
      allow_truncate: z.boolean().optional(),
      fail_fast: z.boolean().optional(),
      output_format: outputFormatSchema,
      ...pagingInput,
    },
    output: {
      success: z.boolean(),
      mode: z.enum(['single', 'batch']),
      count_files: z.number(),
      count_sections: z.number(),
      truncated: z.boolean(),
      truncated_by: z.array(z.string()).optional(),
      error_count: z.number(),
      error_codes: z.record(z.string(), z.number()).optional().describe('Errors per code.'),
      errors: z
        .array(errorOut)
        .optional()
        .describe('The first errors; every error is in its results[] entry.'),
      errors_truncated: z.boolean().optional().describe('errors lists only the first of error_count.'),
      results: z.array(resultOut).optional(),
      next_cursor: z.string().optional(),
      limits: limitsSchema,
      format: z
        .literal('toon')
        .optional()
        .describe('Present when the answer is TOON: toon_content holds its results.'),
      toon_content: z
        .string()
        .optional()
        .describe('TOON document {results} (the other fields are beside it, not repeated in it).'),
    },
    textFormat: formatOf,
    async run(args, ctx) {
      warmUpTokenizer(); // sections are measured in tokens: the thread loads while the files are read
      const single = SINGLE_FIELDS.filter((field) => args[field] !== undefined);
      if (args.requests && single.length > 0) {
        throw new ToolError(
          'INVALID_ARGUMENT',
          `requests cannot be combined with ${single.join(', ')}: single and batch mode are mutually exclusive.`,
          {
            hint: 'Either {"file_path": "src/a.py", "start_line": 10, "end_line": 40} or {"requests": [{"file_path": "src/a.py", "sections": [{"start_line": 10, "end_line": 40}]}]}.',
          },
        );
      }
      if (!args.requests && (args.file_path === undefined || args.start_line === undefined)) {
        throw new ToolError(
          'INVALID_ARGUMENT',
          'Give file_path and start_line (single mode) or requests (batch mode).',
          {
            hint: 'Example: {"file_path": "src/a.py", "start_line": 10, "end_line": 40}.',
          },
        );
      }
      const mode: 'single' | 'batch' = args.requests ? 'batch' : 'single';
      const paths = pathsOf(ctx, deps);
      const wanted = args.requests ?? [
        {
          file_path: args.file_path as string,
          sections: [
            {
              start_line: args.start_line as number,
              end_line: args.end_line,
              start_column: args.start_column,
              end_column: args.end_column,
            } satisfies SectionSpec,
          ],
        },
      ];
      const resolved: ResolvedRequest[] = [];
      for (const request of wanted) {
        try {
          const realPath = await paths.resolve(request.file_path, { mustExist: true, kind: 'file' });
          // file_path echoes the request (so an agent can match its own input); resolved_path is the
          // file read, root/project-relative like every path this server shows.
          resolved.push({
            file_path: request.file_path,
            resolved_path: paths.display(realPath),
            realPath,
            sections: request.sections,
          });
        } catch (error) {
          resolved.push({
            file_path: request.file_path,
            error: toToolError(error),
            sections: request.sections,
          });
        }
      }
      const result = await extractSections(resolved, {
        files: ctx.paths,
        allowTruncate: args.allow_truncate === true,
        failFast: args.fail_fast === true,
      });
      const countSections = result.files.reduce((sum, f) => sum + f.sections.length, 0);
      // Single mode has one section: its failure is the answer, with the original hint and details.
      if (mode === 'single' && result.errors[0] && countSections === 0) throw result.errors[0].error;

      const budget = answerBudget(args.max_answer_tokens);
      const format = formatOf(args);
      const sectionFormat: SectionFormat = args.format ?? 'text';
      const errors = errorSummary(result.errors);
      const limits = { ...EXTRACT_LIMITS, max_answer_tokens: budget };
      // The budget is part of the key: it decides how sections are split into parts.
      const key = hashKey(['extract_code_section', { ...args, cursor: undefined, output_format: undefined }]);
      const detailed = (rows: readonly AnswerRow[], nextOffset: number | undefined, fp: string) =>
        compact({
          success: countSections > 0 || result.errors.length === 0,
          mode,
          count_files: result.files.length,
          count_sections: countSections,
          truncated: result.truncated,
          truncated_by: result.truncatedBy.length > 0 ? result.truncatedBy : undefined,
          ...errors,
          results: groupRows(rows, result.files, sectionFormat),
          next_cursor: nextOffset === undefined ? undefined : makeCursor(key, nextOffset, fp),
          limits,
        });

      // Split sections into parts that fit a page with room for the envelope (counts, limits, error
      // summary, cursor) and for the escaping of the content in JSON/TOON strings. Errors are rows too.
      const envelope = (await countTokens(render(detailed([], undefined, 'x'.repeat(12)), format))) + 120;
      const partTokens = Math.max(50, Math.floor((budget - envelope) * 0.7));
      // format "json" shows each line as {line, text}: ~10 tokens more per line in JSON, ~5 in TOON. Parts
      // are cut with that counted, so a long range of short lines pages instead of overflowing one page.
      const lineOverhead = sectionFormat === 'json' ? (format === 'json' ? 12 : 6) : 0;
      const rows = await toRows(result, partTokens, countEach, lineOverhead);
      const fp = fingerprint(
        rows.map((r) =>
          isErrorRow(r)
            ? [r.file, r.failure.section, r.failure.error.message]
            : [r.file, r.start_line, r.end_line, digest(r.content)],
        ),
      );
      let offset = 0;
      if (args.cursor !== undefined) {
        const cursor = readCursor(args.cursor, key);
        if (cursor.h !== fp) throw staleCursor();
        offset = cursor.o;
      }
      const lineText = (candidate: readonly AnswerRow[], nextOffset: number | undefined) =>
        extractText(candidate, result.files, sectionFormat, {
          errorCount: result.errors.length,
          errorCodes: 'error_codes' in errors ? errors.error_codes : undefined,
          truncatedBy: result.truncatedBy,
          nextCursor: nextOffset === undefined ? undefined : makeCursor(key, nextOffset, fp),
        });
      const page = await fitPage(rows, offset, budget, (candidate, hasMore) => {
        const nextOffset = hasMore ? offset + candidate.length : undefined;
        return format === 'json'
          ? render(detailed(candidate, nextOffset, fp), format)
          : lineText(candidate, nextOffset);
      });
      const answer = detailed(page.rows, page.nextOffset, fp);

      if (format === 'json') return answer;
      // Default: the text block is the source lines after one header line each, and notes (see
      // extract-text.ts). With --structured-output the structured result is spec 001's TOON answer:
      // counts, limits, the error summary and the cursor as fields, and toon_content only the TOON of
      // what those fields do not hold (results[]): a client that shows structuredContent (Claude Code,
      // Codex) reads each part once, not the summary twice.
      return reply(
        compact({
          success: answer.success,
          mode,
          count_files: answer.count_files,
          count_sections: answer.count_sections,
          truncated: answer.truncated,
          truncated_by: answer.truncated_by,
          ...errors,
          next_cursor: answer.next_cursor,
          limits,
          format: 'toon' as const,
          toon_content: render({ results: answer.results }, 'toon'),
        }),
        lineText(page.rows, page.nextOffset),
      );
    },
  });
}

function digest(text: string): string {
  return createHash('sha256').update(text).digest('base64url').slice(0, 10);
}

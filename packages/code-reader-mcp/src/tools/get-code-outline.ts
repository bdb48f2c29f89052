import { defineTool } from '@mcp-workbench/core';
import { z } from 'zod';
import { readStructure } from '../code/parsed-file.js';
import type { CodeStructure } from '../code/structure.js';
import { pageSections } from '../paging/sections.js';
import { filePathInput } from './code-shared.js';
import { sourceFile, type ToolDeps } from './deps.js';
import {
  compact,
  continuation,
  continuationOutput,
  formatOf,
  outputFormatSchema,
  pagingInput,
  pagingOf,
} from './shared.js';

interface OutlineItem {
  kind: string;
  name: string;
  start_line: number;
  end_line: number;
  members?: { kind: string; name: string; start_line: number; end_line: number }[];
}

const memberSchema = z.object({
  kind: z.string(),
  name: z.string(),
  start_line: z.number(),
  end_line: z.number(),
});

interface Span {
  start_line: number;
  end_line: number;
}

/**
 * Which spans lie inside another span of the list (start <= s.start, s.end <= end). Two spans with the
 * same lines contain each other. Sorted by start then longest first, a span is inside another when an
 * earlier one reaches at least as far: O(n log n), not the pairwise O(n²).
 */
function containedSpans(spans: readonly Span[]): boolean[] {
  const order = spans.map((_, i) => i);
  order.sort(
    (a, b) =>
      (spans[a] as Span).start_line - (spans[b] as Span).start_line ||
      (spans[b] as Span).end_line - (spans[a] as Span).end_line,
  );
  const inside = new Array<boolean>(spans.length).fill(false);
  let reach = -Infinity;
  for (let k = 0; k < order.length; k++) {
    const i = order[k] as number;
    const s = spans[i] as Span;
    const prev = k > 0 ? (spans[order[k - 1] as number] as Span) : undefined;
    const next = k + 1 < order.length ? (spans[order[k + 1] as number] as Span) : undefined;
    const same = (o: Span | undefined) => o?.start_line === s.start_line && o.end_line === s.end_line;
    inside[i] = reach >= s.end_line || same(prev) || same(next);
    reach = Math.max(reach, s.end_line);
  }
  return inside;
}

/** First index of `items` (sorted by start) whose start is at least `line`. */
function firstFrom<T>(items: readonly T[], start: (item: T) => number, line: number): number {
  let lo = 0;
  let hi = items.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (start(items[mid] as T) < line) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** The items of `items` (sorted by start) inside [from, to], in their order. */
function within<T>(
  items: readonly T[],
  start: (item: T) => number,
  end: (item: T) => number,
  from: number,
  to: number,
): T[] {
  const found: T[] = [];
  for (let i = firstFrom(items, start, from); i < items.length; i++) {
    const item = items[i] as T;
    if (start(item) > to) break;
    if (end(item) <= to) found.push(item);
  }
  return found;
}

/**
 * Top-level classes (with their methods and fields) and functions, in file order. The structure lists
 * come in tree pre-order, hence sorted by start line; lookups are binary searches, not scans per class.
 */
export function outlineOf(structure: CodeStructure): OutlineItem[] {
  const items: OutlineItem[] = [];
  const classes = structure.classes;
  const classInside = containedSpans(classes);
  const methods = structure.functions.filter((f) => f.kind === 'method');
  const byStart = (s: Span) => s.start_line;
  const byEnd = (s: Span) => s.end_line;
  // Lines covered by some class, as merged disjoint ranges.
  const covered: Span[] = [];
  for (const c of [...classes].sort((a, b) => a.start_line - b.start_line)) {
    const last = covered[covered.length - 1];
    if (last && c.start_line <= last.end_line) last.end_line = Math.max(last.end_line, c.end_line);
    else covered.push({ start_line: c.start_line, end_line: c.end_line });
  }
  const inClass = (line: number) => {
    const i = firstFrom(covered, byStart, line + 1) - 1;
    return i >= 0 && line <= (covered[i] as Span).end_line;
  };
  classes.forEach((c, index) => {
    // Nested classes show as members of the outer one.
    if (classInside[index]) return;
    const members = [
      ...within(classes, byStart, byEnd, c.start_line, c.end_line)
        .filter((n) => n !== c)
        .map((n) => ({ kind: n.kind, name: n.name, start_line: n.start_line, end_line: n.end_line })),
      ...within(methods, byStart, byEnd, c.start_line, c.end_line).map((f) => ({
        kind: 'method',
        name: f.name,
        start_line: f.start_line,
        end_line: f.end_line,
      })),
      ...within(
        structure.fields,
        (f) => f.line,
        (f) => f.line,
        c.start_line,
        c.end_line,
      ).map((f) => ({
        kind: 'field',
        name: f.name,
        start_line: f.line,
        end_line: f.line,
      })),
    ].sort((a, b) => a.start_line - b.start_line);
    items.push({
      kind: c.kind,
      name: c.name,
      start_line: c.start_line,
      end_line: c.end_line,
      ...(members.length > 0 ? { members } : {}),
    });
  });
  const functions = structure.functions.filter((f) => f.kind === 'function' && !inClass(f.start_line));
  const functionInside = containedSpans(functions);
  functions.forEach((f, index) => {
    if (!functionInside[index])
      items.push({ kind: 'function', name: f.name, start_line: f.start_line, end_line: f.end_line });
  });
  return items.sort((a, b) => a.start_line - b.start_line);
}

export function getCodeOutlineTool(deps: ToolDeps) {
  return defineTool({
    name: 'get_code_outline',
    title: 'Get code outline',
    description:
      'A table of contents of one source file: top-level classes (with methods, fields, nested types) and functions ' +
      'with their line ranges, plus the import count. Cheap way to navigate a big file before extract_code_section.',
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    input: { file_path: filePathInput, output_format: outputFormatSchema, ...pagingInput },
    output: {
      file_path: z.string(),
      language: z.string(),
      total_lines: z.number(),
      imports: z.number(),
      outline: z.array(
        z.object({
          kind: z.string(),
          name: z.string(),
          start_line: z.number(),
          end_line: z.number(),
          members: z.array(memberSchema).optional(),
        }),
      ),
      warnings: z
        .array(z.string())
        .optional()
        .describe('Present when the file has syntax errors: the structure may be incomplete.'),
      ...continuationOutput,
    },
    textFormat: formatOf,
    async run(args, ctx) {
      const { real, shown } = await sourceFile(ctx, deps, args.file_path);
      const { structure, language, totalLines, warnings } = await readStructure(ctx.paths, real, shown);
      return pageSections({
        ...pagingOf(args, ['get_code_outline', shown]),
        sections: { outline: outlineOf(structure) },
        build: (page, nextCursor) =>
          compact({
            file_path: shown,
            language,
            total_lines: totalLines,
            imports: structure.imports.length,
            outline: (page.outline ?? []) as OutlineItem[],
            ...(warnings.length > 0 ? { warnings } : {}),
            ...continuation(nextCursor),
          }),
      });
    },
  });
}

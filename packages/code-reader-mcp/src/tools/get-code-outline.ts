import { defineTool, reply } from '@mcp-workbench/core';
import { z } from 'zod';
import { readStructure } from '../code/parsed-file.js';
import type { ClassInfo, CodeStructure, FieldInfo, FunctionInfo } from '../code/structure.js';
import { pageSections } from '../paging/sections.js';
import { countTokens } from '../tokens/counter.js';
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
  render,
} from './shared.js';

/** One line of the outline: a class-like type, a method, a field or a top-level function. */
interface OutlineItem {
  kind: string;
  name: string;
  start_line: number;
  end_line: number;
  /** The enclosing class-like type ("" at the top level); for Go, the receiver type of a method. */
  class: string;
}

/** A half-open range [start, end): the offsets of a node, or its lines for a structure made by hand. */
interface Span {
  start: number;
  end: number;
}

/** Where a row lies: its node's offsets when the structure has them, else its lines (end exclusive). */
function spanOf(structure: CodeStructure, row: ClassInfo | FunctionInfo | FieldInfo): Span {
  const known = structure.spans?.get(row);
  if (known) return known;
  return 'line' in row
    ? { start: row.line, end: row.line + 1 }
    : { start: row.start_line, end: row.end_line + 1 };
}

/**
 * Which spans lie inside another span of the list (start <= s.start, s.end <= end). Of two equal
 * spans only the later one is inside (one row is kept). Sorted by start then longest first, a span is
 * inside another when an earlier one reaches at least as far: O(n log n), not the pairwise O(n²).
 */
function containedSpans(spans: readonly Span[]): boolean[] {
  const order = spans.map((_, i) => i);
  order.sort(
    (a, b) =>
      (spans[a] as Span).start - (spans[b] as Span).start || (spans[b] as Span).end - (spans[a] as Span).end,
  );
  const inside = new Array<boolean>(spans.length).fill(false);
  let reach = -Infinity;
  for (const i of order) {
    const s = spans[i] as Span;
    inside[i] = reach >= s.end;
    reach = Math.max(reach, s.end);
  }
  return inside;
}

/**
 * The outline as one flat list in file order: classes (each with the class around it, "" at the top
 * level), their methods and fields, and the functions outside every class and function. Flat rows of
 * the same keys make one TOON table, never dearer than JSON (nested member lists were, on C files).
 * Methods declared outside their type (Go receivers, `func (p *Proxy) Run()`) are rows of their own,
 * in file order, naming the type in `class`. Nesting is decided by offsets, not lines: declarations
 * sharing a line (`function a() {} function b() {}`, minified bundles) are each listed (audit t42).
 */
export function outlineOf(structure: CodeStructure): OutlineItem[] {
  const rows: { item: OutlineItem; span: Span }[] = [];
  const classes = structure.classes
    .map((c) => ({ c, span: spanOf(structure, c) }))
    .sort((a, b) => a.span.start - b.span.start || b.span.end - a.span.end);
  // The innermost class around each class: a sweep with the classes still open.
  const open: { c: ClassInfo; span: Span }[] = [];
  for (const entry of classes) {
    const { c, span } = entry;
    while (open.length > 0 && open[open.length - 1]!.span.end <= span.start) open.pop();
    const outer = open[open.length - 1];
    const around = outer && span.end <= outer.span.end ? outer.c.name : '';
    rows.push({
      item: { kind: c.kind, name: c.name, start_line: c.start_line, end_line: c.end_line, class: around },
      span,
    });
    open.push(entry);
  }
  for (const f of structure.functions) {
    if (f.kind !== 'method') continue;
    rows.push({
      item: { kind: 'method', name: f.name, start_line: f.start_line, end_line: f.end_line, class: f.class },
      span: spanOf(structure, f),
    });
  }
  for (const f of structure.fields) {
    rows.push({
      item: { kind: 'field', name: f.name, start_line: f.line, end_line: f.line, class: f.class },
      span: spanOf(structure, f),
    });
  }
  // Ranges covered by some class, merged and disjoint: functions starting there are not top-level.
  const covered: Span[] = [];
  for (const { span } of classes) {
    const last = covered[covered.length - 1];
    if (last && span.start < last.end) last.end = Math.max(last.end, span.end);
    else covered.push({ ...span });
  }
  const inClass = (at: number) => {
    let lo = 0;
    let hi = covered.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if ((covered[mid] as Span).start <= at) lo = mid + 1;
      else hi = mid;
    }
    return lo > 0 && at < (covered[lo - 1] as Span).end;
  };
  const functions = structure.functions
    .filter((f) => f.kind === 'function')
    .map((f) => ({ f, span: spanOf(structure, f) }))
    .filter(({ span }) => !inClass(span.start));
  const functionInside = containedSpans(functions.map(({ span }) => span));
  functions.forEach(({ f, span }, index) => {
    if (!functionInside[index])
      rows.push({
        item: { kind: 'function', name: f.name, start_line: f.start_line, end_line: f.end_line, class: '' },
        span,
      });
  });
  // File order; stable, so a class comes before a member starting where it does.
  rows.sort((a, b) => a.span.start - b.span.start || a.item.start_line - b.item.start_line);
  return rows.map(({ item }) => item);
}

export function getCodeOutlineTool(deps: ToolDeps) {
  return defineTool({
    name: 'get_code_outline',
    title: 'Get code outline',
    description:
      'Table of contents of one file: kind, name, line range and enclosing class of each class, method, field ' +
      'and function. The cheap way to find what to extract_code_section.',
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    input: { file_path: filePathInput, output_format: outputFormatSchema, ...pagingInput },
    output: {
      file_path: z.string(),
      language: z.string(),
      total_lines: z.number(),
      imports: z.number(),
      outline: z
        .array(
          z.object({
            kind: z.string().describe('class, struct, interface, …, method, field or function.'),
            name: z.string(),
            start_line: z.number(),
            end_line: z.number(),
            class: z
              .string()
              .describe('The enclosing type ("" at the top level); for a Go method, its receiver type.'),
          }),
        )
        .describe('Classes, their methods and fields, and top-level functions, in file order.'),
      warnings: z
        .array(z.string())
        .optional()
        .describe('Present when the file has syntax errors: the structure may be incomplete.'),
      ...continuationOutput,
    },
    textFormat: formatOf,
    async run(args, ctx) {
      const { real, shown } = await sourceFile(ctx, deps, args.file_path);
      const { structure, language, totalLines, warnings } = await readStructure(
        ctx.paths,
        real,
        shown,
        ctx.signal,
      );
      const answer = await pageSections({
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
      if (formatOf(args) === 'json') return answer;
      // The cheapest faithful form of this outline: TOON's table header does not pay for itself on a few
      // rows or on none (C headers, issue 13). The page was cut for TOON; JSON is sent only when smaller.
      const toon = render(answer, 'toon');
      const json = render(answer, 'json');
      const [toonTokens, jsonTokens] = await Promise.all([countTokens(toon), countTokens(json)]);
      return reply(answer, jsonTokens < toonTokens ? json : toon);
    },
  });
}

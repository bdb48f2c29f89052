import { defineTool, reply } from '@mcp-workbench/core';
import { z } from 'zod';
import { readStructure } from '../code/parsed-file.js';
import type { ClassInfo, CodeStructure } from '../code/structure.js';
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

/**
 * The outline as one flat list in file order: classes (each with the class around it, "" at the top
 * level), their methods and fields, and the functions outside every class and function. Flat rows of
 * the same keys make one TOON table, never dearer than JSON (nested member lists were, on C files).
 * Methods declared outside their type (Go receivers, `func (p *Proxy) Run()`) are rows of their own,
 * in file order, naming the type in `class`.
 */
export function outlineOf(structure: CodeStructure): OutlineItem[] {
  const items: OutlineItem[] = [];
  const classes = [...structure.classes].sort(
    (a, b) => a.start_line - b.start_line || b.end_line - a.end_line,
  );
  // The innermost class around each class: a sweep with the classes still open.
  const open: ClassInfo[] = [];
  for (const c of classes) {
    while (open.length > 0 && (open[open.length - 1] as ClassInfo).end_line < c.start_line) open.pop();
    const outer = open[open.length - 1];
    const around = outer && c.end_line <= outer.end_line ? outer.name : '';
    items.push({ kind: c.kind, name: c.name, start_line: c.start_line, end_line: c.end_line, class: around });
    open.push(c);
  }
  for (const f of structure.functions) {
    if (f.kind !== 'method') continue;
    items.push({
      kind: 'method',
      name: f.name,
      start_line: f.start_line,
      end_line: f.end_line,
      class: f.class,
    });
  }
  for (const f of structure.fields) {
    items.push({ kind: 'field', name: f.name, start_line: f.line, end_line: f.line, class: f.class });
  }
  // Lines covered by some class, as merged disjoint ranges: functions there are not top-level.
  const covered: Span[] = [];
  for (const c of classes) {
    const last = covered[covered.length - 1];
    if (last && c.start_line <= last.end_line) last.end_line = Math.max(last.end_line, c.end_line);
    else covered.push({ start_line: c.start_line, end_line: c.end_line });
  }
  const inClass = (line: number) => {
    let lo = 0;
    let hi = covered.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if ((covered[mid] as Span).start_line <= line) lo = mid + 1;
      else hi = mid;
    }
    return lo > 0 && line <= (covered[lo - 1] as Span).end_line;
  };
  const functions = structure.functions.filter((f) => f.kind === 'function' && !inClass(f.start_line));
  const functionInside = containedSpans(functions);
  functions.forEach((f, index) => {
    if (!functionInside[index])
      items.push({
        kind: 'function',
        name: f.name,
        start_line: f.start_line,
        end_line: f.end_line,
        class: '',
      });
  });
  // Stable: a class comes before its first member when they start on the same line.
  return items.sort((a, b) => a.start_line - b.start_line);
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

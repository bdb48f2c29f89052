import { defineTool } from '@mcp-workbench/core';
import { z } from 'zod';
import { readStructure } from '../code/parsed-file.js';
import type { CodeStructure } from '../code/structure.js';
import { answerBudget, hashKey } from '../paging/budget.js';
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
  render,
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

/** Top-level classes (with their methods and fields) and functions, in file order. */
export function outlineOf(structure: CodeStructure): OutlineItem[] {
  const items: OutlineItem[] = [];
  const classes = structure.classes;
  const inClass = (line: number) => classes.some((c) => c.start_line <= line && line <= c.end_line);
  for (const c of classes) {
    // Nested classes show as members of the outer one.
    const outer = classes.find((o) => o !== c && o.start_line <= c.start_line && c.end_line <= o.end_line);
    if (outer) continue;
    const members = [
      ...classes
        .filter((n) => n !== c && c.start_line <= n.start_line && n.end_line <= c.end_line)
        .map((n) => ({ kind: n.kind, name: n.name, start_line: n.start_line, end_line: n.end_line })),
      ...structure.functions
        .filter((f) => f.kind === 'method' && c.start_line <= f.start_line && f.end_line <= c.end_line)
        .map((f) => ({ kind: 'method', name: f.name, start_line: f.start_line, end_line: f.end_line })),
      ...structure.fields
        .filter((f) => c.start_line <= f.line && f.line <= c.end_line)
        .map((f) => ({ kind: 'field', name: f.name, start_line: f.line, end_line: f.line })),
    ].sort((a, b) => a.start_line - b.start_line);
    items.push({
      kind: c.kind,
      name: c.name,
      start_line: c.start_line,
      end_line: c.end_line,
      ...(members.length > 0 ? { members } : {}),
    });
  }
  const functions = structure.functions.filter((f) => f.kind === 'function' && !inClass(f.start_line));
  for (const f of functions) {
    const nested = functions.some((o) => o !== f && o.start_line <= f.start_line && f.end_line <= o.end_line);
    if (!nested)
      items.push({ kind: 'function', name: f.name, start_line: f.start_line, end_line: f.end_line });
  }
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
      ...continuationOutput,
    },
    textFormat: formatOf,
    async run(args, ctx) {
      const { real, shown } = await sourceFile(ctx, deps, args.file_path);
      const { structure, language, totalLines } = await readStructure(real, shown);
      const format = formatOf(args);
      return pageSections({
        sections: { outline: outlineOf(structure) },
        key: hashKey(['get_code_outline', shown]),
        cursor: args.cursor,
        budget: answerBudget(args.max_answer_tokens),
        build: (page, nextCursor) =>
          compact({
            file_path: shown,
            language,
            total_lines: totalLines,
            imports: structure.imports.length,
            outline: (page.outline ?? []) as OutlineItem[],
            ...continuation(nextCursor),
          }),
        render: (value) => render(value, format),
      });
    },
  });
}

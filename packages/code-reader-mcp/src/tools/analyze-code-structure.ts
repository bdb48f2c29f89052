import { defineTool } from '@mcp-workbench/core';
import { z } from 'zod';
import { readStructure } from '../code/parsed-file.js';
import type { CodeStructure } from '../code/structure.js';
import { pageSections } from '../paging/sections.js';
import { classSchema, fieldSchema, filePathInput, functionSchema, importSchema } from './code-shared.js';
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

const CSV_HEADER = 'type,name,class,start_line,end_line,lines,params,complexity';

function csvCell(value: string | number): string {
  const text = String(value);
  return /[",\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/**
 * One CSV row per class, function, field and import, for spreadsheets and quick diffing. Without the
 * header: rows are paged like the other formats, and each page starts with CSV_HEADER.
 */
export function structureCsvRows(structure: CodeStructure): string[] {
  const rows: string[] = [];
  for (const c of structure.classes)
    rows.push(
      ['class', c.name, '', c.start_line, c.end_line, c.end_line - c.start_line + 1, '', '']
        .map(csvCell)
        .join(','),
    );
  for (const f of structure.functions)
    rows.push(
      [f.kind, f.name, f.class, f.start_line, f.end_line, f.lines, f.params, f.complexity]
        .map(csvCell)
        .join(','),
    );
  for (const f of structure.fields)
    rows.push(['field', f.name, f.class, f.line, f.line, 1, '', ''].map(csvCell).join(','));
  for (const i of structure.imports)
    rows.push(['import', i.text, '', i.line, i.line, 1, '', ''].map(csvCell).join(','));
  return rows;
}

export function analyzeCodeStructureTool(deps: ToolDeps) {
  return defineTool({
    name: 'analyze_code_structure',
    title: 'Analyze code structure',
    description:
      'Classes, functions and methods (lines, parameters, cyclomatic complexity), fields and imports of one file. ' +
      'format compact: names and lines only. For a plain table of contents, get_code_outline is cheaper.',
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    input: {
      file_path: filePathInput,
      format: z.enum(['full', 'compact', 'csv']).optional(),
      output_format: outputFormatSchema,
      ...pagingInput,
    },
    output: {
      file_path: z.string(),
      language: z.string(),
      total_lines: z.number(),
      classes: z.array(classSchema.partial()).optional(),
      functions: z.array(functionSchema.partial()).optional(),
      fields: z.array(fieldSchema).optional(),
      imports: z.array(importSchema).optional(),
      csv: z.string().optional(),
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
      const head = {
        file_path: shown,
        language,
        total_lines: totalLines,
        ...(warnings.length > 0 ? { warnings } : {}),
      };
      const style = args.format ?? 'full';
      const paging = pagingOf(args, ['analyze_code_structure', shown, style]);
      if (style === 'csv') {
        return pageSections({
          ...paging,
          sections: { csv: structureCsvRows(structure) },
          build: (page, nextCursor) =>
            compact({
              ...head,
              csv: [CSV_HEADER, ...(page.csv ?? [])].join('\n'),
              ...continuation(nextCursor),
            }),
        });
      }
      const sections: Record<string, readonly unknown[]> =
        style === 'compact'
          ? {
              classes: structure.classes.map(({ name, kind, start_line, end_line }) => ({
                name,
                kind,
                start_line,
                end_line,
              })),
              functions: structure.functions.map(({ name, class: owner, start_line, end_line }) => ({
                name,
                class: owner,
                start_line,
                end_line,
              })),
            }
          : {
              classes: structure.classes,
              functions: structure.functions,
              fields: structure.fields,
              imports: structure.imports,
            };
      return pageSections({
        ...paging,
        sections,
        build: (page, nextCursor) =>
          compact({
            ...head,
            ...page,
            ...continuation(nextCursor),
          }),
      });
    },
  });
}

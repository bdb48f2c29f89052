import { createRequire } from 'node:module';
import { encode as encodeToon, decode as decodeToon } from '@toon-format/toon';
import type { Scalar } from 'yaml';
import { ToolError } from './errors.js';
import { textSafe } from './text-values.js';

export type OutputFormat = 'json' | 'toon' | 'yaml';

export interface FormatOptions {
  /** Pretty-print JSON (default: compact, which costs the fewest tokens). */
  pretty?: boolean;
  /** Indentation for pretty JSON, YAML and TOON (default 2). */
  indent?: number;
  /** TOON delimiter for tabular rows and inline arrays (default ','; a tab often saves tokens). */
  delimiter?: ',' | '\t' | '|';
}

/** Renders a JSON-compatible value. TOON is the official encoder; YAML is the `yaml` package. */
export function formatOutput(value: unknown, format: OutputFormat, options: FormatOptions = {}): string {
  const indent = options.indent ?? 2;
  switch (format) {
    case 'json':
      return options.pretty ? JSON.stringify(value, null, indent) : JSON.stringify(value);
    case 'toon':
      return encodeToon(textSafe(value), {
        indentSize: indent,
        ...(options.delimiter ? { delimiter: options.delimiter } : {}),
      });
    case 'yaml':
      return yamlText(textSafe(value), indent);
    default:
      throw new ToolError('INVALID_ARGUMENT', `Unknown output format "${String(format)}".`, {
        hint: 'Use "json", "toon" or "yaml".',
      });
  }
}

/**
 * YAML that YAML 1.1 readers (PyYAML, Ruby) and 1.2 readers read back the same: written under the 1.1
 * schema, so `2025-01-01`, `yes`, `on`, `1:30`, `012` stay quoted strings, plus the one 1.2-only
 * number form, `0o17`.
 */
function yamlText(value: unknown, indent: number): string {
  const { Document, visit } = loadYaml();
  const doc = new Document(value, { version: '1.1' });
  visit(doc, {
    Scalar(_key, node: Scalar) {
      if (typeof node.value === 'string' && /^[-+]?0o[0-7]+$/.test(node.value)) node.type = 'QUOTE_DOUBLE';
    },
  });
  return doc.toString({ indent, lineWidth: 0 });
}

let yaml: typeof import('yaml') | undefined;

/**
 * The `yaml` package (72 modules) loads on the first YAML answer, not with every server: a server that
 * never writes YAML starts without it (issue 13: start time). Its Node build is CommonJS, so `require`
 * loads the same code `import` would, synchronously.
 */
function loadYaml(): typeof import('yaml') {
  yaml ??= createRequire(import.meta.url)('yaml') as typeof import('yaml');
  return yaml;
}

/** Parses YAML with the `yaml` package, loaded on first use like the writer's. */
export function parseYaml(text: string, options?: { maxAliasCount?: number }): unknown {
  return loadYaml().parse(text, options);
}

/**
 * Decodes TOON with the official decoder (strict mode), at the document's own indentation: the first
 * indented line is one level deep, so its leading spaces are the indent size (`formatOutput` writes 1–8).
 */
export function parseToon(text: string): unknown {
  const indent = /^( +)\S/m.exec(text)?.[1]?.length;
  return decodeToon(text, indent ? { indentSize: indent } : {});
}

export const OUTPUT_FORMATS: readonly OutputFormat[] = ['json', 'toon', 'yaml'];

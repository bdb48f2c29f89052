import { encode as encodeToon, decode as decodeToon } from '@toon-format/toon';
import { stringify as stringifyYaml } from 'yaml';
import { ToolError } from './errors.js';

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
      return encodeToon(value, {
        indentSize: indent,
        ...(options.delimiter ? { delimiter: options.delimiter } : {}),
      });
    case 'yaml':
      return stringifyYaml(value, { indent, lineWidth: 0 });
    default:
      throw new ToolError('INVALID_ARGUMENT', `Unknown output format "${String(format)}".`, {
        hint: 'Use "json", "toon" or "yaml".',
      });
  }
}

/** Decodes TOON with the official decoder (strict mode). */
export function parseToon(text: string): unknown {
  return decodeToon(text);
}

export const OUTPUT_FORMATS: readonly OutputFormat[] = ['json', 'toon', 'yaml'];

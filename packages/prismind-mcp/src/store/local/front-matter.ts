import { parse, stringify } from 'yaml';

/** A Markdown file split into its YAML front matter (the catalog fields) and its body. */
export interface MarkdownFile {
  fields: Record<string, unknown> | undefined;
  body: string;
  /**
   * Why the front matter of a document the store wrote (it names its `doc_id`) cannot be read: YAML a
   * hand edit broke, or a block too large to parse. Read as body, it would be lost on the next write.
   */
  frontMatterError?: string;
}

const FENCE = /^---\r?\n([\s\S]*?)\r?\n---\r?\n?/;
/** The store writes about 1 KB of front matter; YAML's duplicate-key check grows with the square of the keys. */
export const MAX_FRONT_MATTER_BYTES = 64 * 1024;
const STORE_WRITTEN = /^doc_id[ \t]*:/m;

/**
 * Splits `---\nyaml\n---\nbody`. A file a person wrote without front matter, or with a fenced block that
 * is not a YAML mapping (two `---` rules around text), is all body: it is never refused for that. The
 * front matter of a store document that no longer parses is an error (`frontMatterError`).
 */
export function parseMarkdown(text: string): MarkdownFile {
  const source = text.startsWith('\ufeff') ? text.slice(1) : text;
  const match = FENCE.exec(source);
  if (!match) return { fields: undefined, body: source };
  const block = match[1]!;
  const ours = STORE_WRITTEN.test(block);
  const broken = (frontMatterError: string): MarkdownFile =>
    ours
      ? { fields: undefined, body: source.slice(match[0].length), frontMatterError }
      : { fields: undefined, body: source };
  if (block.length > MAX_FRONT_MATTER_BYTES)
    return broken(`its front matter is over ${MAX_FRONT_MATTER_BYTES / 1024} KB`);
  let fields: unknown;
  try {
    fields = plainFrontMatter(block) ?? parse(block);
  } catch (error) {
    return broken(String((error as Error).message).split('\n')[0]!);
  }
  if (fields && typeof fields === 'object' && !Array.isArray(fields))
    return { fields: fields as Record<string, unknown>, body: source.slice(match[0].length) };
  return broken('its front matter is not a list of "key: value" lines');
}

const KEY = /^[A-Za-z_][A-Za-z0-9_]*$/;
/**
 * A plain scalar that YAML 1.2 (core schema) reads as this very string: no indicator first, no
 * comment, no `: `, no quote or escape, no space at either end, and nothing the schema reads as null, a
 * boolean or a number.
 */
const PLAIN =
  // eslint-disable-next-line no-control-regex -- control characters are exactly what it must refuse
  /^[^\s\-?:,[\]{}#&*!|>'"%@`\u0000-\u001f\u007f-\u009f\u2028\u2029\ufeff][^\u0000-\u001f\u007f-\u009f\u2028\u2029\ufeff]*$/u;
const NOT_STRING =
  /^(?:~|null|Null|NULL|true|True|TRUE|false|False|FALSE|[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+|[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$/;

function plainScalar(value: string): string | undefined {
  if (value === '""') return '';
  if (!PLAIN.test(value) || NOT_STRING.test(value)) return undefined;
  if (/\s$/u.test(value) || value.includes(': ') || value.endsWith(':') || /\s#/u.test(value))
    return undefined;
  return value;
}

/**
 * The front matter the server writes (one `key: value` per line, plain or empty strings, lists of
 * them as `  - item` lines or `[]`) read without the YAML parser, which took most of the time of
 * reading a hand-edited file back. Anything else — quotes, comments, nesting, numbers, a repeated key —
 * returns undefined and goes to the YAML parser; what it returns is what the parser would.
 */
export function plainFrontMatter(source: string): Record<string, unknown> | undefined {
  const fields: Record<string, unknown> = {};
  const lines = source.split(/\r?\n/);
  let list: string[] | undefined;
  for (const line of lines) {
    if (line.startsWith('  - ')) {
      const item = list && plainScalar(line.slice(4));
      if (item === undefined) return undefined;
      list!.push(item);
      continue;
    }
    if (list && list.length === 0) return undefined;
    list = undefined;
    const colon = line.indexOf(':');
    if (colon <= 0) return undefined;
    const key = line.slice(0, colon);
    if (!KEY.test(key) || NOT_STRING.test(key) || key === '__proto__' || Object.hasOwn(fields, key))
      return undefined;
    const rest = line.slice(colon + 1);
    if (rest === '') {
      list = [];
      fields[key] = list;
    } else if (rest === ' []') {
      fields[key] = [];
    } else {
      const value = rest.startsWith(' ') ? plainScalar(rest.slice(1)) : undefined;
      if (value === undefined) return undefined;
      fields[key] = value;
    }
  }
  if (list && list.length === 0) return undefined;
  return fields;
}

/** The body of a Markdown file without parsing its front matter (for a quick hash comparison). */
export function bodyOfMarkdown(text: string): string {
  const source = text.startsWith('\ufeff') ? text.slice(1) : text;
  const match = FENCE.exec(source);
  return match ? source.slice(match[0].length) : source;
}

/** Front matter and body; a body whose lines all end in CRLF (saved on Windows) gets CRLF front matter too. */
export function renderMarkdown(fields: Record<string, unknown>, body: string): string {
  const text = `---\n${stringify(fields, { lineWidth: 0 })}---\n`;
  return (crlfOnly(body) ? text.replace(/\n/g, '\r\n') : text) + body;
}

function crlfOnly(body: string): boolean {
  const lineFeeds = body.split('\n').length - 1;
  return lineFeeds > 0 && body.split('\r\n').length - 1 === lineFeeds;
}

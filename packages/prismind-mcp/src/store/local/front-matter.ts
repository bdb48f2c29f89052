import { parse, stringify } from 'yaml';

/** A Markdown file split into its YAML front matter (the catalog fields) and its body. */
export interface MarkdownFile {
  fields: Record<string, unknown> | undefined;
  body: string;
}

const FENCE = /^---\r?\n([\s\S]*?)\r?\n---\r?\n?/;

/**
 * Splits `---\nyaml\n---\nbody`. A file a person wrote without front matter, or with front matter that
 * is not a YAML mapping, is all body: it is never refused for that.
 */
export function parseMarkdown(text: string): MarkdownFile {
  const source = text.startsWith('\ufeff') ? text.slice(1) : text;
  const match = FENCE.exec(source);
  if (!match) return { fields: undefined, body: source };
  try {
    const fields: unknown = parse(match[1]!);
    if (fields && typeof fields === 'object' && !Array.isArray(fields)) {
      return { fields: fields as Record<string, unknown>, body: source.slice(match[0].length) };
    }
  } catch {
    // not YAML: treat the whole file as body
  }
  return { fields: undefined, body: source };
}

/** The body of a Markdown file without parsing its front matter (for a quick hash comparison). */
export function bodyOfMarkdown(text: string): string {
  const source = text.startsWith('\ufeff') ? text.slice(1) : text;
  const match = FENCE.exec(source);
  return match ? source.slice(match[0].length) : source;
}

export function renderMarkdown(fields: Record<string, unknown>, body: string): string {
  return `---\n${stringify(fields, { lineWidth: 0 })}---\n${body}`;
}

import type { CatalogEntry, KnowledgeEntry } from '../model/types.js';
import { normalizeText } from '../text/normalize.js';
import { pieces } from '../text/words.js';

/**
 * What the catalog cache indexes of a document: its fields and its whole body (every backend indexes
 * the same text). Without a body: the fields alone, which is what ranking compares with a query.
 */
export function catalogText(entry: CatalogEntry, body: string): string {
  return [
    entry.name,
    // The file name of a Markdown document (a Google Docs id is no word anyone searches for).
    entry.location.endsWith('.md') ? (entry.location.split('/').pop()?.slice(0, -3) ?? '') : '',
    entry.doc_type,
    entry.phase_task,
    entry.feature,
    entry.keywords.join(' '),
    entry.reference_timing,
    body,
  ].join('\n');
}

/** Characters of a section of a long document (see catalogSections). */
export const SECTION_CHARS = 4000;
/**
 * Characters each section repeats of the one before: a term of up to this length that straddles a cut
 * is wholly inside the next section.
 */
export const SECTION_OVERLAP = 100;

/**
 * A document's indexed text in sections, for stores whose index rows should stay small (PostgreSQL: a
 * tsvector holds at most 1 MB, and one row per megabyte-sized document would make every search that
 * rechecks it read the megabyte). The first section holds the fields and the start of the body; each
 * further one about SECTION_CHARS of the body, cut after white space or punctuation where possible,
 * beginning SECTION_OVERLAP characters before the previous one ended. A document contains a term when
 * one of its sections does.
 */
export function catalogSections(entry: CatalogEntry, body: string): string[] {
  const fields = catalogText(entry, '');
  const sections: string[] = [];
  let current = fields;
  let tail = '';
  for (const piece of pieces(body)) {
    if (current.length + piece.length > SECTION_CHARS && current !== fields) {
      sections.push(current);
      tail = current.slice(-SECTION_OVERLAP);
      current = tail;
    }
    current += piece;
  }
  if (current !== tail || sections.length === 0) sections.push(current);
  return sections;
}

export function knowledgeText(entry: Pick<KnowledgeEntry, 'content' | 'tags' | 'category'>): string {
  return [entry.content, entry.tags.join(' '), entry.category].join('\n');
}

/** Tags are matched case- and width-insensitively. */
export function tagKey(tag: string): string {
  return normalizeText(tag);
}

export function embedderWarning(url: string): string {
  return `埋め込みサーバ (${url}) が応答しないため、n-gram 類似度で検索しました。`;
}

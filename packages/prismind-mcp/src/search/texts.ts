import type { CatalogEntry, KnowledgeEntry } from '../model/types.js';
import { normalizeText } from '../text/normalize.js';

/** The start of a document that the catalog cache indexes besides its fields. */
export const BODY_INDEXED = 2000;

/** What the catalog cache indexes of a document (every backend indexes the same text). */
export function catalogText(entry: CatalogEntry, body: string): string {
  return [
    entry.name,
    entry.location.split('/').pop()?.replace(/\.md$/, '') ?? '',
    entry.doc_type,
    entry.phase_task,
    entry.feature,
    entry.keywords.join(' '),
    entry.reference_timing,
    body.slice(0, BODY_INDEXED),
  ].join('\n');
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

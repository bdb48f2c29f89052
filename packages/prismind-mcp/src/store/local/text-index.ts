import { shortTermTokenList } from '../../text/grams.js';
import { normalizeText, textRuns } from '../../text/normalize.js';
import { ftsPhrase, trigramsOf, type QueryTerm } from '../../text/terms.js';
import type { Db } from './database.js';

/** How many loosely matching rows (sharing some piece of the query) are scored at most. */
const LOOSE_CANDIDATES = 100;
/** How many of the query's pieces, the rarest first, a fuzzy search looks up. */
const RAREST_PIECES = 4;

/**
 * Two FTS5 tables over the same rows: `<name>_tri` (trigram tokenizer: substrings of three characters
 * or more, any language) and `<name>_short` (unigrams and bigrams of CJK text plus whole Latin words:
 * the terms of one or two characters that trigrams cannot match). Both are contentless: the text lives
 * in the row's own table, the index only maps terms to rowids.
 */
export class TextIndex {
  constructor(
    private readonly db: Db,
    private readonly name: 'catalog' | 'knowledge',
  ) {}

  /** Indexes a row that is not in the index yet. */
  insert(rowid: number, text: string): void {
    // One normalisation for both tables (a document is indexed whole: up to a megabyte).
    const normalized = normalizeText(text);
    this.db.prepare(`INSERT INTO ${this.name}_tri (rowid, text) VALUES (?, ?)`).run(rowid, normalized);
    this.db
      .prepare(`INSERT INTO ${this.name}_short (rowid, text) VALUES (?, ?)`)
      .run(rowid, shortTermTokenList(textRuns(normalized)).join(' '));
  }

  /** Indexes a row again (its text changed). */
  put(rowid: number, text: string): void {
    this.remove(rowid);
    this.insert(rowid, text);
  }

  remove(rowid: number): void {
    this.db.prepare(`DELETE FROM ${this.name}_tri WHERE rowid = ?`).run(rowid);
    this.db.prepare(`DELETE FROM ${this.name}_short WHERE rowid = ?`).run(rowid);
  }

  /**
   * A subquery of the row ids containing every term: the long terms through the trigram table, the
   * short ones through the short-term table. Each term is decided on its own, so a short term next to
   * long ones is neither dropped nor allowed to match everything.
   */
  strict(terms: QueryTerm[]): { sql: string; params: unknown[] } {
    const long = terms.filter((t) => t.kind === 'trigram').map((t) => ftsPhrase(t.text));
    const short = terms
      .filter((t) => t.kind !== 'trigram')
      .map((t) => (t.kind === 'word' ? `${ftsPhrase(t.text)} *` : ftsPhrase(t.text)));
    const parts: string[] = [];
    const params: unknown[] = [];
    if (long.length > 0) {
      parts.push(`SELECT rowid AS id FROM ${this.name}_tri WHERE ${this.name}_tri MATCH ?`);
      params.push(long.join(' AND '));
    }
    if (short.length > 0) {
      parts.push(`SELECT rowid AS id FROM ${this.name}_short WHERE ${this.name}_short MATCH ?`);
      params.push(short.join(' AND '));
    }
    return { sql: parts.join(' INTERSECT '), params };
  }

  /**
   * Row ids that share some piece of the query: the candidates of a fuzzy search. It starts from the
   * rarest pieces (document frequency from fts5vocab) and takes the newest rows holding one of them, so
   * its cost does not grow with how common a piece like "ion" or 「する」 is.
   */
  loose(terms: QueryTerm[]): number[] {
    const ids = new Set<number>();
    const take = (kind: 'tri' | 'short', pieces: string[]) => {
      if (pieces.length === 0) return;
      const vocab = this.db.prepare(`SELECT doc FROM ${this.name}_${kind}_vocab WHERE term = ?`);
      const rare = pieces
        .map((piece) => ({ piece, doc: (vocab.get(piece) as { doc: number } | undefined)?.doc ?? 0 }))
        .filter((p) => p.doc > 0)
        .sort((a, b) => a.doc - b.doc)
        .slice(0, RAREST_PIECES)
        .map((p) => ftsPhrase(p.piece));
      if (rare.length === 0) return;
      const rows = this.db
        .prepare(
          `SELECT rowid AS id FROM ${this.name}_${kind} WHERE ${this.name}_${kind} MATCH ? ORDER BY rowid DESC LIMIT ${LOOSE_CANDIDATES}`,
        )
        .all(rare.join(' OR ')) as { id: number }[];
      for (const row of rows) ids.add(row.id);
    };
    // The trigram tokenizer folds case; the vocabulary holds the folded pieces.
    take('tri', [...new Set(terms.filter((t) => t.kind !== 'short').flatMap((t) => trigramsOf(t.text)))]);
    take('short', [...new Set(terms.filter((t) => t.kind === 'short').map((t) => t.text))]);
    return [...ids];
  }

  clear(rowids: number[]): void {
    for (const id of rowids) this.remove(id);
  }
}

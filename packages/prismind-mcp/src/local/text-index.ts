import { shortTermTokens } from '../text/grams.js';
import { normalizeText } from '../text/normalize.js';
import { ftsPhrase, trigramsOf, type QueryTerm } from '../text/terms.js';
import type { Db } from './database.js';

/** How many loosely matching rows (sharing some piece of the query) are scored at most. */
const LOOSE_CANDIDATES = 100;

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
    this.db
      .prepare(`INSERT INTO ${this.name}_tri (rowid, text) VALUES (?, ?)`)
      .run(rowid, normalizeText(text));
    this.db
      .prepare(`INSERT INTO ${this.name}_short (rowid, text) VALUES (?, ?)`)
      .run(rowid, shortTermTokens(text));
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
   * SQL conditions on `<alias>.id` that hold for rows containing every term: the long terms through the
   * trigram table, the short ones through the short-term table. Each term is decided on its own, so a
   * short term next to long ones is neither dropped nor allowed to match everything.
   */
  strict(terms: QueryTerm[], alias: string): { where: string[]; params: unknown[] } {
    const long = terms.filter((t) => t.kind === 'trigram').map((t) => ftsPhrase(t.text));
    const short = terms.filter((t) => t.kind === 'short').map((t) => ftsPhrase(t.text));
    const where: string[] = [];
    const params: unknown[] = [];
    if (long.length > 0) {
      where.push(`${alias}.id IN (SELECT rowid FROM ${this.name}_tri WHERE ${this.name}_tri MATCH ?)`);
      params.push(long.join(' AND '));
    }
    if (short.length > 0) {
      where.push(`${alias}.id IN (SELECT rowid FROM ${this.name}_short WHERE ${this.name}_short MATCH ?)`);
      params.push(short.join(' AND '));
    }
    return { where, params };
  }

  /** Row ids that share some piece of the query (best first by BM25): the candidates of a fuzzy search. */
  loose(terms: QueryTerm[]): number[] {
    const pieces = new Set<string>();
    const words = new Set<string>();
    for (const term of terms) {
      if (term.kind === 'short') words.add(ftsPhrase(term.text));
      else for (const piece of trigramsOf(term.text)) pieces.add(ftsPhrase(piece));
    }
    const ids = new Set<number>();
    const take = (table: string, match: string[]) => {
      if (match.length === 0) return;
      const rows = this.db
        .prepare(
          `SELECT rowid AS id FROM ${table} WHERE ${table} MATCH ? ORDER BY rank LIMIT ${LOOSE_CANDIDATES}`,
        )
        .all(match.join(' OR ')) as { id: number }[];
      for (const row of rows) ids.add(row.id);
    };
    take(`${this.name}_tri`, [...pieces]);
    take(`${this.name}_short`, [...words]);
    return [...ids];
  }

  clear(rowids: number[]): void {
    for (const id of rowids) this.remove(id);
  }
}

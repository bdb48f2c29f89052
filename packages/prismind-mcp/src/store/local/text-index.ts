import { shortTermTokenList } from '../../text/grams.js';
import { normalizeText, textRuns } from '../../text/normalize.js';
import { ftsPhrase, trigramsOf, type QueryTerm } from '../../text/terms.js';
import type { Db } from './database.js';

/** How many loosely matching rows (sharing some piece of the query) are scored at most. */
const LOOSE_CANDIDATES = 100;
/** How many of a term's pieces, the rarest first, a fuzzy search looks up. */
const RAREST_PIECES = 4;
/** How many terms a fuzzy search looks up, those with the rarest pieces first (a pasted page has 32). */
const LOOSE_TERMS = 8;

/** One term's lookup in a fuzzy search: its rarest pieces in one of the two tables. */
interface PieceLookup {
  kind: 'tri' | 'short';
  pieces: string[];
  /** Document frequency of the rarest piece. */
  rarest: number;
}

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
   * Row ids that share some piece of the query: the candidates of a fuzzy search. Each term is looked
   * up on its own, by its rarest pieces (document frequency from fts5vocab), taking the newest rows
   * holding one of them: its cost does not grow with how common a piece like "ion" or 「する」 is, and a
   * rare term does not crowd out the pieces of the others (each term can bring its documents). Rows
   * found for more terms come first.
   */
  loose(terms: QueryTerm[]): number[] {
    const lookups = [
      // The trigram tokenizer folds case; the vocabulary holds the folded pieces.
      ...terms.filter((t) => t.kind !== 'short').map((t) => this.rarest('tri', trigramsOf(t.text))),
      ...terms.filter((t) => t.kind === 'short').map((t) => this.rarest('short', [t.text])),
    ]
      .filter((l) => l.pieces.length > 0)
      .sort((a, b) => a.rarest - b.rarest)
      .slice(0, LOOSE_TERMS);
    if (lookups.length === 0) return [];
    const perTerm = lookups.map(
      ({ kind }) =>
        `SELECT * FROM (SELECT rowid AS id FROM ${this.name}_${kind} WHERE ${this.name}_${kind} MATCH ?
           ORDER BY rowid DESC LIMIT ${LOOSE_CANDIDATES})`,
    );
    const rows = this.db
      .prepare(
        `SELECT id FROM (${perTerm.join(' UNION ALL ')}) GROUP BY id
         ORDER BY count(*) DESC, id DESC LIMIT ${LOOSE_CANDIDATES}`,
      )
      .all(...lookups.map((l) => l.pieces.map(ftsPhrase).join(' OR '))) as { id: number }[];
    return rows.map((row) => row.id);
  }

  /** A term's pieces that some row holds, the rarest first (at most RAREST_PIECES). */
  private rarest(kind: 'tri' | 'short', pieces: string[]): PieceLookup {
    const vocab = this.db.prepare(`SELECT doc FROM ${this.name}_${kind}_vocab WHERE term = ?`);
    const found = [...new Set(pieces)]
      .map((piece) => ({ piece, doc: (vocab.get(piece) as { doc: number } | undefined)?.doc ?? 0 }))
      .filter((p) => p.doc > 0)
      .sort((a, b) => a.doc - b.doc)
      .slice(0, RAREST_PIECES);
    return { kind, pieces: found.map((p) => p.piece), rarest: found[0]?.doc ?? 0 };
  }

  clear(rowids: number[]): void {
    for (const id of rowids) this.remove(id);
  }
}

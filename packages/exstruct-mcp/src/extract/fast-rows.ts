// The fast path of extraction: the rows of a worksheet's sheetData read straight from the inflated bytes
// in one pass, each value stored in the columnar row store and — for compact JSON — its JSON written at
// once as bytes (a number's text is copied as it stands when it is already what JSON.stringify writes).
// No string is made for a cell unless its value is text.
//
// It reads the shapes producers write: `<row>` elements holding `<c>` elements that hold `<f>`, `<v>` and
// simple inline strings (`<is><t>…</t></is>`), with any attributes, prefixes and white space between
// elements. Anything else (comments, CDATA, rich-text runs, entities in attribute values, namespace
// declarations, rows beyond the grid, a tag that does not close as it opened) throws NotFast, and the
// caller reads the sheet again with the full tokenizer (row-fragment-parser.ts), which decides what the
// markup means or which error it is. Strict where the full tokenizer is strict on any path (attribute
// names, duplicates, prefixes), so a sheet read here gives exactly what the tokenizer gives.
import { isAscii } from 'node:buffer';
import { isGridRow, MAX_COLUMN_INDEX } from '../ooxml/columns.js';
import { unescapeOoxmlText } from '../ooxml/ooxml-text.js';
import { decodeText, type NsScope } from '../ooxml/xml-tokenizer.js';
import type { WorksheetInfo } from '../ooxml/worksheet-handlers.js';
import type { ByteSink } from './byte-sink.js';
import { MAX_DATE_SERIAL, storeValue, type SinkConfig } from './cell-sink.js';
import {
  DECIMALS,
  Kind,
  SegmentBuilder,
  valueJson,
  type RowSegment,
  type WorkbookValues,
} from './row-store.js';

/** The rows hold markup only the full tokenizer reads (or reports): read the sheet with it instead. */
export class NotFast extends Error {
  override name = 'NotFast';
}

const LT = 60;
const GT = 62;
const SLASH = 47;
const EQ = 61;
const DQ = 34;
const SQ = 39;
const AMP = 38;
const COLON = 58;
const MINUS = 45;
const DOT = 46;
const ZERO = 48;

/** A row longer than this (bytes) is left to the full tokenizer, which streams it. */
const MAX_CARRY_BYTES = 8 << 20;

const POW10 = Array.from({ length: 23 }, (_, k) => 10 ** k);

const utf8 = new TextDecoder('utf-8', { ignoreBOM: true });

function isSpace(b: number): boolean {
  return b === 32 || b === 10 || b === 13 || b === 9;
}

/** Ends a name: white space, `>` or `/`. */
function endsName(b: number): boolean {
  return b === 32 || b === GT || b === SLASH || b === 10 || b === 13 || b === 9;
}

function notFast(): never {
  throw new NotFast();
}

const bytesOf = (text: string) => Buffer.from(text, 'latin1');

// Cell types as codes: what storeValue gets back as text on the slow path.
const T_NONE = 0;
const T_S = 1;
const T_N = 2;
const T_B = 3;
const T_INLINE = 4;
const T_OTHER = 5;

export interface FastRowsOptions {
  config: SinkConfig;
  values: WorkbookValues;
  /** The sheetData element's prefix (`x:` or ''), which its rows and cells share. */
  prefix: string;
  /** The namespace declarations in force inside sheetData. */
  scope: NsScope;
  /** Row heights go here. */
  info: Pick<WorksheetInfo, 'rowHeights'>;
  /** Where the rows' compact JSON goes (`[{"r":1,"c":{…}},…]`), or nothing. */
  json?: { sink: ByteSink; alpha: boolean } | undefined;
  expectedCells?: number;
  /** A small sheet's rows are lent the spare columns (see SegmentBuilder.finish), not copied out. */
  lendColumns?: boolean;
  /**
   * Rows without `r` are NotFast: a batch cut out of a sheet (parallel-rows.ts) cannot number them, as
   * it does not know how many rows came before it.
   */
  rowRefsRequired?: boolean;
}

export interface FastRows {
  segment: RowSegment;
  borders: Int32Array;
  /** Rows came in ascending order (else the store is sorted and the JSON written is of no use). */
  ordered: boolean;
  /** Bytes of rows JSON written (0: the sheet has no values). */
  jsonBytes: number;
}

/**
 * Reads sheetData's content, given in pieces cut anywhere (`write`), then `end`. Whole rows are read in
 * place; only the few bytes of a row cut by the end of a piece are copied, to be joined to the next.
 */
export class FastRowParser {
  private readonly builder: SegmentBuilder;
  private readonly lendColumns: boolean;
  private readonly config: SinkConfig;
  private readonly values: WorkbookValues;
  private readonly info: Pick<WorksheetInfo, 'rowHeights'>;
  private readonly sink: ByteSink | undefined;
  private readonly alpha: boolean;
  private readonly scope: NsScope;
  private readonly anyBorders: boolean;
  private readonly rowRefsRequired: boolean;
  private borders: number[] = [];

  // Element names, as bytes after the `<`.
  private readonly rowTag: Buffer;
  private readonly nRow: Buffer;
  private readonly nC: Buffer;
  private readonly nV: Buffer;
  private readonly nF: Buffer;
  private readonly nIs: Buffer;
  private readonly nT: Buffer;

  /** The bytes of a row cut by the end of the last piece (several pieces for a very long row). */
  private carry: Buffer[] = [];
  private carryLength = 0;

  // Sheet state.
  private rowNumber = 0;
  private nextCol = 0;
  /** The row whose JSON object is open (-1: none), and whether it has a cell yet. */
  private jsonRow = -1;
  private storeRow = -1;
  private ordered = true;
  private readonly jsonStart: number;
  /** A prefix checked once against the scope (most attributes share one: `x14ac:`). */
  private knownPrefix: Buffer = Buffer.alloc(0);
  /** Names of the attributes of the tag being read besides r, s and t (for the duplicate check). */
  private readonly otherNames: number[] = [];
  private otherCount = 0;
  /** The text of the inline string just read. */
  private inlineText = '';

  constructor(options: FastRowsOptions) {
    this.config = options.config;
    this.values = options.values;
    this.info = options.info;
    this.sink = options.json?.sink;
    this.alpha = options.json?.alpha === true;
    this.scope = options.scope;
    this.builder = new SegmentBuilder(options.expectedCells);
    this.lendColumns = options.lendColumns === true;
    this.rowRefsRequired = options.rowRefsRequired === true;
    this.anyBorders = options.config.bordered.includes(1);
    const p = options.prefix;
    checkRowsNamespace(options.scope, p);
    this.rowTag = bytesOf(`<${p}row`);
    this.nRow = bytesOf(`${p}row`);
    this.nC = bytesOf(`${p}c`);
    this.nV = bytesOf(`${p}v`);
    this.nF = bytesOf(`${p}f`);
    this.nIs = bytesOf(`${p}is`);
    this.nT = bytesOf(`${p}t`);
    this.jsonStart = this.sink?.offset ?? 0;
  }

  write(piece: Buffer): void {
    let from = 0;
    if (this.carryLength > 0) {
      // The row cut by the last piece ends before the first row that starts in this one.
      const next = piece.indexOf(this.rowTag);
      if (next < 0) {
        if (this.carryLength + piece.length > MAX_CARRY_BYTES) notFast();
        this.keep(piece, 0);
        return;
      }
      this.carry.push(piece.subarray(0, next));
      const joined = Buffer.concat(this.carry, this.carryLength + next);
      this.carry = [];
      this.carryLength = 0;
      this.parse(joined, 0, joined.length);
      from = next;
    }
    const last = piece.lastIndexOf(this.rowTag);
    if (last <= from) {
      this.keep(piece, from);
      return;
    }
    this.parse(piece, from, last);
    this.keep(piece, last);
  }

  /** Keeps `piece[from...]` (a copy: the piece's memory is reused) to be joined to the next piece. */
  private keep(piece: Buffer, from: number): void {
    if (from >= piece.length) return;
    this.carry.push(Buffer.from(piece.subarray(from)));
    this.carryLength += piece.length - from;
  }

  end(): FastRows {
    if (this.carryLength > 0) {
      const rest = Buffer.concat(this.carry, this.carryLength);
      this.carry = [];
      this.carryLength = 0;
      this.parse(rest, 0, rest.length);
    }
    const sink = this.sink;
    if (sink && this.jsonRow >= 0) {
      sink.reserve(3);
      sink.buf[sink.pos++] = 125; // }
      sink.buf[sink.pos++] = 125;
      sink.buf[sink.pos++] = 93; // ]
    }
    const borders = Int32Array.from(this.borders);
    this.borders = [];
    return {
      segment: this.builder.finish({ lend: this.lendColumns }),
      borders,
      ordered: this.ordered,
      jsonBytes: sink ? sink.offset - this.jsonStart : 0,
    };
  }

  /** `name` at `at`, followed by the end of a name: the index after it, else -1. */
  private static nameAt(src: Buffer, at: number, end: number, name: Buffer): number {
    const n = name.length;
    if (at + n >= end) return -1;
    for (let k = 0; k < n; k++) if (src[at + k] !== name[k]) return -1;
    return endsName(src[at + n]!) ? at + n : -1;
  }

  /** Reads whole rows from `src[start, end)`; throws NotFast on anything it does not read. */
  private parse(src: Buffer, start: number, end: number): void {
    let i = start;
    for (;;) {
      while (i < end && isSpace(src[i]!)) i++;
      if (i >= end) return;
      if (src[i] !== LT) notFast();
      const afterName = FastRowParser.nameAt(src, i + 1, end, this.nRow);
      if (afterName < 0) notFast();
      i = this.row(src, afterName, end);
    }
  }

  /** A `<row>` from just after its name; returns the index after it. */
  private row(src: Buffer, from: number, end: number): number {
    let i = from;
    let r = -1;
    let height: number | undefined;
    let hidden = false;
    let selfClosing = false;
    this.otherCount = 0;
    for (;;) {
      while (i < end && isSpace(src[i]!)) i++;
      if (i >= end) notFast();
      const b = src[i]!;
      if (b === GT) {
        i++;
        break;
      }
      if (b === SLASH) {
        if (src[i + 1] !== GT) notFast();
        selfClosing = true;
        i += 2;
        break;
      }
      const nameStart = i;
      const eq = this.attributeName(src, i, end);
      const quote = src[eq + 1]!;
      if (quote !== DQ && quote !== SQ) notFast();
      const valueStart = eq + 2;
      const valueEnd = this.attributeValue(src, valueStart, end, quote);
      i = valueEnd + 1;
      const nameLength = eq - nameStart;
      if (nameLength === 1 && src[nameStart] === 114 /* r */) {
        if (r !== -1) notFast();
        r = digitsOf(src, valueStart, valueEnd);
        if (r < 0) notFast();
      } else if (nameLength === 2 && src[nameStart] === 104 && src[nameStart + 1] === 116 /* ht */) {
        if (height !== undefined || !isAscii(src.subarray(valueStart, valueEnd))) notFast();
        height = +src.toString('latin1', valueStart, valueEnd);
      } else {
        this.otherAttribute(src, nameStart, eq);
        if (nameLength === 6 && startsWith(src, nameStart, HIDDEN)) {
          const text = src.toString('latin1', valueStart, valueEnd);
          hidden = text === '1' || text === 'true';
        }
      }
    }
    if (r < 0 && this.rowRefsRequired) notFast();
    const rowNumber = r < 0 ? this.rowNumber + 1 : r;
    if (!isGridRow(rowNumber)) notFast();
    this.rowNumber = rowNumber;
    this.nextCol = 0;
    if (hidden) this.info.rowHeights.set(rowNumber, 0);
    else if (height !== undefined) this.info.rowHeights.set(rowNumber, height);
    if (selfClosing) return i;
    for (;;) {
      while (i < end && isSpace(src[i]!)) i++;
      if (i + 1 >= end || src[i] !== LT) notFast();
      if (src[i + 1] === SLASH) return this.endTag(src, i, end, this.nRow);
      const afterName = FastRowParser.nameAt(src, i + 1, end, this.nC);
      if (afterName < 0) notFast();
      i = this.cell(src, afterName, end);
    }
  }

  /** `</name>` at `at`: the index after it (anything else: NotFast). */
  private endTag(src: Buffer, at: number, end: number, name: Buffer): number {
    const n = name.length;
    if (at + n + 3 > end || src[at] !== LT || src[at + 1] !== SLASH || src[at + n + 2] !== GT) notFast();
    for (let k = 0; k < n; k++) if (src[at + 2 + k] !== name[k]) notFast();
    return at + n + 3;
  }

  /**
   * An attribute's name from `i`: checks it as the full tokenizer does and returns the index of its
   * `=` (white space around `=` is left to the full tokenizer).
   */
  private attributeName(src: Buffer, i: number, end: number): number {
    const start = i;
    for (; i < end; i++) {
      const b = src[i]!;
      if (b === EQ) break;
      if (b <= 32 || b === DQ || b === SQ || b === LT || b === GT || b === SLASH) notFast();
    }
    if (i === start || i + 1 >= end) notFast();
    return i;
  }

  /** The index of the quote that ends the value starting at `i`; `<` and `&` are left to the tokenizer. */
  private attributeValue(src: Buffer, i: number, end: number, quote: number): number {
    for (; i < end; i++) {
      const b = src[i]!;
      if (b === quote) return i;
      if (b === LT || b === AMP) notFast();
    }
    return notFast();
  }

  /**
   * An attribute other than the ones read: a declaration, an undeclared prefix or a name given twice in
   * the tag is left to the full tokenizer.
   */
  private otherAttribute(src: Buffer, start: number, end: number): void {
    if (end - start >= 5 && startsWith(src, start, XMLNS)) notFast();
    let colon = -1;
    for (let k = start; k < end; k++) {
      if (src[k] !== COLON) continue;
      if (colon >= 0) notFast();
      colon = k;
    }
    if (colon >= 0) {
      if (colon === start || colon === end - 1) notFast();
      const prefix = this.knownPrefix;
      let known = prefix.length === colon - start;
      for (let k = 0; known && k < prefix.length; k++) known = src[start + k] === prefix[k];
      if (!known) {
        const name = src.toString('latin1', start, colon);
        if (!isAscii(src.subarray(start, colon)) || (name !== 'xml' && !this.scope.has(name))) notFast();
        this.knownPrefix = Buffer.from(src.subarray(start, colon));
      }
    }
    const names = this.otherNames;
    const count = this.otherCount;
    for (let k = 0; k < count; k += 2) {
      const s = names[k]!;
      if (names[k + 1]! - s !== end - start) continue;
      let same = true;
      for (let j = 0; same && j < end - start; j++) same = src[s + j] === src[start + j];
      if (same) notFast();
    }
    names[count] = start;
    names[count + 1] = end;
    this.otherCount = count + 2;
  }

  /** A `<c>` from just after its name; returns the index after it. */
  private cell(src: Buffer, from: number, end: number): number {
    let i = from;
    let col = -1;
    let style = 0;
    let type = T_NONE;
    let typeText: string | undefined;
    let seen = 0; // 1 r, 2 s, 4 t
    let selfClosing = false;
    this.otherCount = 0;
    for (;;) {
      while (i < end && isSpace(src[i]!)) i++;
      if (i >= end) notFast();
      const b = src[i]!;
      if (b === GT) {
        i++;
        break;
      }
      if (b === SLASH) {
        if (src[i + 1] !== GT) notFast();
        selfClosing = true;
        i += 2;
        break;
      }
      const nameStart = i;
      // The three attributes of nearly every cell without the general name scan.
      const eq =
        src[i + 1] === EQ && (b === 114 || b === 115 || b === 116) ? i + 1 : this.attributeName(src, i, end);
      const quote = src[eq + 1]!;
      if (quote !== DQ && quote !== SQ) notFast();
      const valueStart = eq + 2;
      const valueEnd = this.attributeValue(src, valueStart, end, quote);
      i = valueEnd + 1;
      if (eq - nameStart !== 1) {
        this.otherAttribute(src, nameStart, eq);
        continue;
      }
      if (b === 114 /* r */) {
        if (seen & 1) notFast();
        seen |= 1;
        col = columnOf(src, valueStart, valueEnd);
      } else if (b === 115 /* s */) {
        if (seen & 2) notFast();
        seen |= 2;
        style = digitsOf(src, valueStart, valueEnd);
        if (style < 0) notFast();
      } else if (b === 116 /* t */) {
        if (seen & 4) notFast();
        seen |= 4;
        const n = valueEnd - valueStart;
        const c0 = src[valueStart]!;
        if (n === 1 && c0 === 115) type = T_S;
        else if (n === 1 && c0 === 110) type = T_N;
        else if (n === 1 && c0 === 98) type = T_B;
        else {
          if (!isAscii(src.subarray(valueStart, valueEnd))) notFast();
          typeText = src.toString('latin1', valueStart, valueEnd);
          type = typeText === 'inlineStr' ? T_INLINE : T_OTHER;
        }
      } else {
        this.otherAttribute(src, nameStart, eq);
      }
    }
    const column = col < 0 ? this.nextCol : col;
    if (column > MAX_COLUMN_INDEX) notFast();
    this.nextCol = column + 1;
    const row = this.rowNumber;
    if (this.anyBorders && this.config.bordered[style] === 1) this.borders.push(row, column);
    if (selfClosing) return i;

    // Content: at most one <f>, one <v> and one <is>, in any order, white space between.
    let vStart = -1;
    let vEnd = -1;
    let inline: string | undefined;
    let hadF = false;
    for (;;) {
      while (i < end && isSpace(src[i]!)) i++;
      if (i + 1 >= end || src[i] !== LT) notFast();
      if (src[i + 1] === SLASH) {
        i = this.endTag(src, i, end, this.nC);
        break;
      }
      let at = FastRowParser.nameAt(src, i + 1, end, this.nV);
      if (at >= 0) {
        if (vStart >= 0) notFast();
        // `<v>` as producers write it, else its attributes are checked.
        const after = src[at] === GT ? at + 1 : this.startTagRest(src, at, end);
        if (after < 0) {
          vStart = vEnd = i = ~after;
          continue;
        }
        const contentStart = after;
        const lt = ltFrom(src, contentStart, end);
        vStart = contentStart;
        vEnd = lt;
        i = this.endTag(src, lt, end, this.nV);
        continue;
      }
      at = FastRowParser.nameAt(src, i + 1, end, this.nF);
      if (at >= 0) {
        if (hadF) notFast();
        hadF = true;
        const contentStart = src[at] === GT ? at + 1 : this.startTagRest(src, at, end);
        if (contentStart < 0) {
          i = ~contentStart;
          continue;
        }
        // A formula's text is not read here, but the tokenizer would refuse a malformed reference in it.
        let lt = contentStart;
        let amp = false;
        for (; lt < end; lt++) {
          const b = src[lt]!;
          if (b === LT) break;
          if (b === AMP) amp = true;
        }
        if (lt >= end || (amp && !referencesValid(src, contentStart, lt))) notFast();
        i = this.endTag(src, lt, end, this.nF);
        continue;
      }
      at = FastRowParser.nameAt(src, i + 1, end, this.nIs);
      if (at >= 0) {
        if (inline !== undefined) notFast();
        i = this.inlineString(src, at, end);
        inline = this.inlineText;
        continue;
      }
      notFast();
    }

    if (vStart < 0 && inline === undefined) return i;
    if (vStart >= 0 && inline !== undefined) notFast(); // which is the value depends on their order
    if (inline === undefined && vStart >= 0) {
      if (type === T_NONE || type === T_N) {
        if (this.number(src, vStart, vEnd, row, column, style)) return i;
      } else if (type === T_S) {
        const index = digitsOf(src, vStart, vEnd);
        if (index >= 0 && vEnd - vStart <= 9) {
          if (index < this.config.sharedCount) {
            this.builder.add(row, column, Kind.Shared, index);
            this.json(row, column, this.values.sharedJsonBytes(index));
          }
          return i;
        }
      } else if (type === T_B && vEnd - vStart === 1 && (src[vStart] === ZERO || src[vStart] === ZERO + 1)) {
        const yes = src[vStart] === ZERO + 1;
        this.builder.add(row, column, yes ? Kind.True : Kind.False, 0);
        this.json(row, column, yes ? TRUE : FALSE);
        return i;
      }
    }
    // Everything else as the full tokenizer's handlers do it (worksheet-handlers.ts, cell-sink.ts): the
    // last of <v> and <is> in the element is the value (here there is only one of them).
    let raw: string;
    if (inline !== undefined) raw = inline;
    else raw = textOf(src, vStart, vEnd);
    if (type === T_INLINE) raw = unescapeOoxmlText(raw);
    const typeName =
      type === T_NONE ? undefined : type === T_S ? 's' : type === T_N ? 'n' : type === T_B ? 'b' : typeText;
    const before = this.builder.size;
    storeValue(this.builder, this.config, row, column, typeName, style, raw);
    if (this.builder.size > before && this.sink) {
      const b = this.builder;
      this.jsonText(row, column, valueJson(this.values, b.lastKind, b.lastNum, b.lastText));
    }
    return i;
  }

  /**
   * The rest of a start tag whose name ends at `i` (attributes are checked and ignored): the index after
   * it, or its bitwise complement (`~index`, negative) when the element closed itself.
   */
  private startTagRest(src: Buffer, i: number, end: number): number {
    this.otherCount = 0;
    for (;;) {
      while (i < end && isSpace(src[i]!)) i++;
      if (i >= end) notFast();
      const b = src[i]!;
      if (b === GT) return i + 1;
      if (b === SLASH) {
        if (src[i + 1] !== GT) notFast();
        return ~(i + 2);
      }
      const nameStart = i;
      const eq = this.attributeName(src, i, end);
      const quote = src[eq + 1]!;
      if (quote !== DQ && quote !== SQ) notFast();
      i = this.attributeValue(src, eq + 2, end, quote) + 1;
      this.otherAttribute(src, nameStart, eq);
    }
  }

  /**
   * `<is>` holding `<t>` elements only (rich text and phonetic runs go to the tokenizer): returns the
   * index after it and leaves its text in `inlineText`.
   */
  private inlineString(src: Buffer, from: number, end: number): number {
    let i = this.startTagRest(src, from, end);
    let text = '';
    this.inlineText = text;
    if (i < 0) return ~i;
    for (;;) {
      while (i < end && isSpace(src[i]!)) i++;
      if (i + 1 >= end || src[i] !== LT) notFast();
      if (src[i + 1] === SLASH) {
        this.inlineText = text;
        return this.endTag(src, i, end, this.nIs);
      }
      const at = FastRowParser.nameAt(src, i + 1, end, this.nT);
      if (at < 0) notFast();
      i = this.startTagRest(src, at, end);
      if (i < 0) {
        i = ~i;
        continue;
      }
      const lt = ltFrom(src, i, end);
      text += textOf(src, i, lt);
      i = this.endTag(src, lt, end, this.nT);
    }
  }

  /**
   * A number cell's value read from its bytes when they are plain decimal (`-?\d+(\.\d+)?`, at most 15
   * digits, so `m / 10^k` is exactly what `+text` gives); false for any other text (the caller then
   * converts it as the tokenizer's handlers do).
   */
  private number(src: Buffer, start: number, end: number, row: number, col: number, style: number): boolean {
    let i = start;
    const negative = src[i] === MINUS;
    if (negative) i++;
    const intStart = i;
    let m = 0;
    for (; i < end; i++) {
      const d = src[i]! - ZERO;
      if (d < 0 || d > 9) break;
      m = m * 10 + d;
    }
    const intDigits = i - intStart;
    if (intDigits === 0 || intDigits > 15) return false;
    let fraction = 0;
    if (i < end) {
      if (src[i] !== DOT) return false;
      const fracStart = ++i;
      for (; i < end; i++) {
        const d = src[i]! - ZERO;
        if (d < 0 || d > 9) return false;
        m = m * 10 + d;
      }
      fraction = i - fracStart;
      if (fraction === 0 || intDigits + fraction > 15) return false;
    }
    let num = fraction === 0 ? m : m / POW10[fraction]!;
    if (negative) num = -num;
    const dateKind = this.config.dateKind;
    const date = style < dateKind.length ? dateKind[style]! : 0;
    if (date !== 0 && num >= 0 && num <= MAX_DATE_SERIAL) {
      const time = date === 2;
      this.builder.add(row, col, time ? Kind.Time : Kind.Date, num);
      if (this.sink) this.json(row, col, this.values.dateJsonBytes(num, time));
      return true;
    }
    const leadingZero = intDigits > 1 && src[intStart] === ZERO;
    if (fraction === 0) {
      this.builder.add(row, col, Kind.Number, num);
      // The text is what String(num) writes unless it has leading zeros or is a negative zero.
      if (!leadingZero && !(negative && m === 0)) this.json(row, col, src, start, end);
      else if (this.sink) this.jsonText(row, col, String(num));
      return true;
    }
    // As jsonFractionDigits: the text is what JSON writes for its value (then toFixed gives it back).
    let plain = end - start <= 12 && !leadingZero && src[end - 1] !== ZERO;
    if (plain && intDigits === 1 && src[intStart] === ZERO) {
      let zeros = 0;
      while (src[intStart + 2 + zeros] === ZERO) zeros++;
      plain = zeros <= 5;
    }
    if (plain) {
      this.builder.add(row, col, DECIMALS + fraction, num);
      this.json(row, col, src, start, end);
    } else {
      this.builder.add(row, col, Kind.Number, num);
      if (this.sink) this.jsonText(row, col, String(num));
    }
    return true;
  }

  /** Writes a cell's key and value JSON (`value[start, end)`), opening its row's object when needed. */
  private json(row: number, col: number, value: Uint8Array, start = 0, end = value.length): void {
    const sink = this.sink;
    if (!sink) return;
    const key = this.values.columnKeyJsonBytes(col, this.alpha);
    sink.reserve(key.length + (end - start) + 24);
    const buf = sink.buf;
    let at = sink.pos;
    if (row !== this.jsonRow) at = this.openRow(buf, at, row);
    else buf[at++] = 44; // ,
    for (let k = 0; k < key.length; k++) buf[at++] = key[k]!;
    for (let k = start; k < end; k++) buf[at++] = value[k]!;
    sink.pos = at;
  }

  private jsonText(row: number, col: number, text: string): void {
    const sink = this.sink!;
    const key = this.values.columnKeyJsonBytes(col, this.alpha);
    sink.reserve(key.length + 24);
    let at = sink.pos;
    if (row !== this.jsonRow) at = this.openRow(sink.buf, at, row);
    else sink.buf[at++] = 44;
    for (let k = 0; k < key.length; k++) sink.buf[at++] = key[k]!;
    sink.pos = at;
    sink.text(text);
  }

  /** Closes the open row object (if any) and opens `{"r":row,"c":{` at `at` (room is reserved). */
  private openRow(buf: Uint8Array, at: number, row: number): number {
    if (this.jsonRow >= 0) {
      if (row < this.jsonRow) this.ordered = false;
      buf[at++] = 125; // }
      buf[at++] = 125;
      buf[at++] = 44; // ,
    } else buf[at++] = 91; // [
    for (let k = 0; k < ROW_OPEN.length; k++) buf[at++] = ROW_OPEN[k]!;
    at = writeDigits(buf, at, row);
    for (let k = 0; k < ROW_CELLS.length; k++) buf[at++] = ROW_CELLS[k]!;
    this.jsonRow = row;
    return at;
  }
}

/** Rows resolve to SpreadsheetML (or to no namespace, which is read as SpreadsheetML), else NotFast. */
export function checkRowsNamespace(scope: NsScope, prefix: string): void {
  const ns = scope.get(prefix === '' ? '' : prefix.slice(0, -1)) ?? '';
  if (
    ns !== '' &&
    ns !== 'http://schemas.openxmlformats.org/spreadsheetml/2006/main' &&
    ns !== 'http://purl.oclc.org/ooxml/spreadsheetml/main'
  )
    notFast();
}

const ROW_OPEN = bytesOf('{"r":');
const HIDDEN = bytesOf('hidden');
const XMLNS = bytesOf('xmlns');

function startsWith(src: Uint8Array, at: number, bytes: Uint8Array): boolean {
  for (let k = 0; k < bytes.length; k++) if (src[at + k] !== bytes[k]) return false;
  return true;
}

/** The next `<` at or after `i`, before `end` (a value's or text's end); NotFast when there is none. */
function ltFrom(src: Uint8Array, i: number, end: number): number {
  for (; i < end; i++) if (src[i] === LT) return i;
  return notFast();
}
const ROW_CELLS = bytesOf(',"c":{');
const TRUE = bytesOf('true');
const FALSE = bytesOf('false');

function writeDigits(buf: Uint8Array, at: number, value: number): number {
  if (value < 10) {
    buf[at] = ZERO + value;
    return at + 1;
  }
  let digits = 0;
  for (let v = value; v > 0; v = Math.floor(v / 10)) digits++;
  let end = at + digits;
  for (let v = value; v > 0; v = Math.floor(v / 10)) buf[--end] = ZERO + (v % 10);
  return at + digits;
}

/** A run of decimal digits as a number; -1 when the run is empty or holds anything else. */
function digitsOf(src: Uint8Array, start: number, end: number): number {
  if (end === start) return -1;
  let value = 0;
  for (let i = start; i < end; i++) {
    const digit = src[i]! - ZERO;
    if (digit < 0 || digit > 9) return -1;
    value = value * 10 + digit;
  }
  return value;
}

/** The 0-based column of a cell reference's letters (`AB12` → 27); -1 when it starts with none. */
function columnOf(src: Uint8Array, start: number, end: number): number {
  let col = 0;
  let i = start;
  for (; i < end; i++) {
    const b = src[i]!;
    if (b >= 65 && b <= 90) col = col * 26 + (b - 64);
    else if (b >= 97 && b <= 122) col = col * 26 + (b - 96);
    else break;
  }
  return i === start ? -1 : col - 1;
}

const NAMED_ENTITIES = new Set(['amp', 'lt', 'gt', 'quot', 'apos']);

/**
 * Every `&` in `src[start, end)` begins a reference decodeEntities (xml-tokenizer.ts) accepts: one of the
 * five predefined entities or a character reference to a code point, ended by `;` within 12 bytes.
 */
function referencesValid(src: Buffer, start: number, end: number): boolean {
  for (let amp = src.indexOf(AMP, start); amp >= 0 && amp < end; amp = src.indexOf(AMP, amp + 1)) {
    const semi = src.indexOf(59 /* ; */, amp + 1);
    if (semi < 0 || semi >= end || semi - amp > 12) return false;
    const name = src.toString('latin1', amp + 1, semi);
    if (NAMED_ENTITIES.has(name)) continue;
    const hex = name[1] === 'x';
    if (!(hex ? /^#x[0-9A-Fa-f]+$/ : /^#[0-9]+$/).test(name)) return false;
    const code = hex ? parseInt(name.slice(2), 16) : parseInt(name.slice(1), 10);
    if (!(code > 0 && code <= 0x10ffff)) return false;
  }
  return true;
}

/** Character data as the tokenizer gives it: UTF-8, line ends normalised, references resolved. */
function textOf(src: Buffer, start: number, end: number): string {
  const bytes = src.subarray(start, end);
  const text = isAscii(bytes) ? src.toString('latin1', start, end) : utf8.decode(bytes);
  if (text.indexOf('&') < 0 && text.indexOf('\r') < 0) return text;
  try {
    return decodeText(text);
  } catch {
    return notFast();
  }
}

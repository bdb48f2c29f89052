// A small, strict XML tokenizer for runs of `<row>` elements cut from sheetData — the hot loop of big
// extractions. Sheet rows use a tiny part of XML (elements, attributes, text, entities, CDATA), so a
// dedicated indexOf-driven scanner does in one pass what a general SAX parser does in several, and it
// still rejects what is not well-formed (unclosed, mismatched or broken tags). Free of other
// dependencies so worker threads load it quickly.
import { isAscii } from 'node:buffer';
import { isMainNs, MAIN_NS, MAIN_NS_STRICT, XML_NS, XMLNS_NS } from './namespaces.js';
import type { SaxHandlers } from './sax.js';
import {
  decodeAttribute,
  decodeText,
  DEFAULT_MAX_DEPTH,
  normalizeLineEnds,
  ROOT_SCOPE,
  XmlError,
  type NsScope,
  type XmlAttribute,
} from './xml-tokenizer.js';

const NO_ATTRS: Record<string, string> = Object.freeze({});
const utf8 = new TextDecoder('utf-8');

/**
 * A run of rows' bytes as text: plain ASCII (the usual case) is copied as Latin-1, several times faster
 * than decoding UTF-8.
 */
export function rowsText(bytes: Uint8Array): string {
  if (isAscii(bytes)) return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('latin1');
  return utf8.decode(bytes);
}
export class RowFragmentError extends Error {
  override name = 'RowFragmentError';
  constructor(
    message: string,
    readonly limit = false,
  ) {
    super(message);
  }
}

/** Longest single piece of markup (tag, comment, CDATA section) accepted between rows and cells. */
export const MAX_TOKEN_CHARS = 16 * 1024 * 1024;

// One-letter attribute names (`r`, `s`, `t` on every cell) as constant strings: V8 then reuses the cells'
// hidden class instead of hashing a fresh key string per attribute — a third of the tokenizer's time.
const ONE_LETTER_NAMES: string[] = Array.from({ length: 128 }, (_, code) => String.fromCharCode(code));

function attributeName(xml: string, start: number, eq: number): string {
  if (eq - start === 1) return ONE_LETTER_NAMES[xml.charCodeAt(start)] ?? xml[start]!;
  return xml.slice(start, eq).trimEnd();
}

function isSpace(code: number): boolean {
  return code === 32 || code === 10 || code === 13 || code === 9;
}

/** An attribute name with nothing odd in it (spaces, `<`, `>`, `/`): anything else takes the slow path. */
function isPlainName(xml: string, start: number, end: number): boolean {
  for (let i = start; i < end; i++) {
    const code = xml.charCodeAt(i);
    if (code <= 32 || code === 60 || code === 62 || code === 47) return false;
  }
  return true;
}

/** A cell's `t` as a constant string for the short common types (no slice per cell). */
function cellType(xml: string, start: number, end: number): string {
  if (end - start === 1) {
    switch (xml.charCodeAt(start)) {
      case 115:
        return 's';
      case 110:
        return 'n';
      case 98:
        return 'b';
      case 101:
        return 'e';
      case 100:
        return 'd';
    }
  } else if (end - start === 3 && xml.startsWith('str', start)) {
    return 'str';
  }
  return xml.slice(start, end);
}

/**
 * The 0-based column of the cell reference at `xml[start, end)` from its letters (`AB12` → 27), without
 * a regex or a slice; -1 when it starts with none.
 */
export function columnOf(xml: string, start: number, end: number): number {
  let col = 0;
  let i = start;
  for (; i < end; i++) {
    const code = xml.charCodeAt(i);
    if (code >= 65 && code <= 90) col = col * 26 + (code - 64);
    else if (code >= 97 && code <= 122) col = col * 26 + (code - 96);
    else break;
  }
  return i === start ? -1 : col - 1;
}

/** A run of decimal digits as a number; -1 when the run is empty or holds anything else. */
function digitsOf(xml: string, start: number, end: number): number {
  if (end === start) return -1;
  let value = 0;
  for (let i = start; i < end; i++) {
    const digit = xml.charCodeAt(i) - 48;
    if (digit < 0 || digit > 9) return -1;
    value = value * 10 + digit;
  }
  return value;
}

/**
 * The `<c>` shortcut: reads the attributes of the cell start tag beginning at `from` (just after the
 * tag name) as scalars, then expects the element to be empty or to hold exactly `<v>value</v>` or
 * `<f>formula</f><v>value</v>` (with the cell's namespace prefix). Reports it in one call and returns
 * the index after the element; returns 0 for anything else, and the caller tokenizes it in full.
 */
function shortcutCell(
  xml: string,
  from: number,
  qname: string,
  cell: NonNullable<SaxHandlers['cell']>,
): number {
  const n = xml.length;
  let i = from;
  let col = -1;
  let style = 0;
  let type: string | undefined;
  let selfClosing = false;
  for (;;) {
    while (i < n && isSpace(xml.charCodeAt(i))) i++;
    if (i >= n) return 0;
    const code = xml.charCodeAt(i);
    if (code === 62 /* > */) {
      i++;
      break;
    }
    if (code === 47 /* / */) {
      if (xml.charCodeAt(i + 1) !== 62) return 0;
      selfClosing = true;
      i += 2;
      break;
    }
    const eq = xml.indexOf('=', i);
    if (eq < 0 || xml.charCodeAt(eq + 1) !== 34 /* " */ || !isPlainName(xml, i, eq)) return 0;
    if (xml.startsWith('xmlns', i)) return 0; // a declaration changes what the content means
    const valueStart = eq + 2;
    const valueEnd = xml.indexOf('"', valueStart);
    if (valueEnd < 0) return 0;
    if (eq - i === 1) {
      const name = xml.charCodeAt(i);
      if (name === 114 /* r */) {
        col = columnOf(xml, valueStart, valueEnd);
      } else if (name === 115 /* s */) {
        style = digitsOf(xml, valueStart, valueEnd);
        if (style < 0) return 0;
      } else if (name === 116 /* t */) {
        type = cellType(xml, valueStart, valueEnd);
        if (type === 'inlineStr' || type.indexOf('&') >= 0) return 0;
      }
    }
    i = valueEnd + 1;
  }
  if (selfClosing) {
    cell(col, type, style, undefined, undefined);
    return i;
  }
  const prefix = qname.slice(0, qname.length - 1);
  let formula: string | undefined;
  const fOpen = prefix === '' ? '<f>' : `<${prefix}f>`;
  if (xml.startsWith(fOpen, i)) {
    const end = xml.indexOf('<', i + fOpen.length);
    const fClose = prefix === '' ? '</f>' : `</${prefix}f>`;
    if (end < 0 || !xml.startsWith(fClose, end)) return 0;
    formula = decodeText(xml.slice(i + fOpen.length, end));
    i = end + fClose.length;
  }
  const vOpen = prefix === '' ? '<v>' : `<${prefix}v>`;
  if (!xml.startsWith(vOpen, i)) return 0;
  const end = xml.indexOf('<', i + vOpen.length);
  const vClose = prefix === '' ? '</v></c>' : `</${prefix}v></${qname}>`;
  if (end < 0 || !xml.startsWith(vClose, end)) return 0;
  const value = xml.slice(i + vOpen.length, end);
  cell(
    col,
    type,
    style,
    value.indexOf('&') < 0 && value.indexOf('\r') < 0 ? value : decodeText(value),
    formula,
  );
  return end + vClose.length;
}

/**
 * The `<row>` shortcut: reads the attributes of a row start tag beginning at `from` as scalars and
 * returns the index after its `>`; returns 0 (the caller then tokenizes it in full) for a self-closing
 * row or anything unusual.
 */
function shortcutRowStart(xml: string, from: number, rowStart: NonNullable<SaxHandlers['rowStart']>): number {
  const n = xml.length;
  let i = from;
  let row = -1;
  let height: number | undefined;
  let hidden = false;
  for (;;) {
    while (i < n && isSpace(xml.charCodeAt(i))) i++;
    if (i >= n) return 0;
    if (xml.charCodeAt(i) === 62 /* > */) {
      rowStart(row, height, hidden);
      return i + 1;
    }
    const eq = xml.indexOf('=', i);
    if (eq < 0 || xml.charCodeAt(eq + 1) !== 34 /* " */ || !isPlainName(xml, i, eq)) return 0;
    if (xml.startsWith('xmlns', i)) return 0;
    const valueStart = eq + 2;
    const valueEnd = xml.indexOf('"', valueStart);
    if (valueEnd < 0) return 0;
    const nameLength = eq - i;
    if (nameLength === 1 && xml.charCodeAt(i) === 114 /* r */) {
      row = digitsOf(xml, valueStart, valueEnd);
      if (row < 0) return 0;
    } else if (nameLength === 2 && xml.startsWith('ht', i)) {
      const text = xml.slice(valueStart, valueEnd);
      if (text.indexOf('&') >= 0) return 0;
      height = +text;
    } else if (nameLength === 6 && xml.startsWith('hidden', i)) {
      const text = xml.slice(valueStart, valueEnd);
      hidden = text === '1' || text === 'true';
    }
    i = valueEnd + 1;
  }
}

/** A name resolved in a scope; `kind` says whether it is SpreadsheetML's `<c>` or `<row>`. */
interface ResolvedName {
  local: string;
  /** The namespace URI; SpreadsheetML's is the module's own constant, so comparing it costs nothing. */
  ns: string;
  kind: NameKind;
}

const enum NameKind {
  Other,
  Cell,
  Row,
}

/**
 * The namespace URI as a constant string when it is SpreadsheetML's: URIs read from the part are fresh
 * strings, and comparing one with the constant character by character (every row and cell) was a
 * noticeable part of the row tokenizer's time.
 */
function canonicalNs(ns: string): string {
  if (ns === MAIN_NS) return MAIN_NS;
  if (ns === MAIN_NS_STRICT) return MAIN_NS_STRICT;
  return ns;
}

interface OpenElement {
  qname: string;
  local: string;
  ns: string;
  /** Set when the element declared namespaces. */
  scope: NsScope | undefined;
}

/**
 * The streaming tokenizer of sheet rows: `write` text in pieces cut anywhere (a run of rows, or any
 * chunk of a worksheet's sheetData), `end` when done. Element names are resolved against the
 * declarations in force where the rows start (`scope`, from the worksheet's root) and any made inside;
 * elements of other vocabularies than SpreadsheetML are reported with their namespace so handlers can
 * skip them. Text split across pieces is reported in pieces. Strict: unclosed, mismatched or broken
 * tags, undeclared prefixes, unknown entities and nesting beyond `maxDepth` throw RowFragmentError.
 */
export class RowTokenizer {
  /** A short rest of the last piece (the start of a reference, a CR, a token's first characters). */
  private left = '';
  /** A longer token cut by the end of a piece: what finds its end, and its pieces so far. */
  private awaiting: TokenEnd | undefined;
  private held: string[] = [];
  private heldLength = 0;
  private readonly stack: OpenElement[] = [];
  /** Names resolved in the base scope (most documents declare everything on the root). */
  private readonly names = new Map<string, ResolvedName>();
  private scoped = 0;
  private readonly open: NonNullable<SaxHandlers['open']>;
  private readonly close: NonNullable<SaxHandlers['close']>;
  private readonly text: NonNullable<SaxHandlers['text']>;

  constructor(
    private readonly handlers: SaxHandlers,
    private readonly scope: NsScope = ROOT_SCOPE,
    private readonly maxDepth = DEFAULT_MAX_DEPTH,
  ) {
    this.open = handlers.open ?? (() => undefined);
    this.close = handlers.close ?? (() => undefined);
    this.text = handlers.text ?? (() => undefined);
  }

  write(piece: string): void {
    if (this.awaiting) {
      // A token cut by the last piece: only this piece is searched for its end, and the pieces are
      // joined once it has come (rescanning and re-joining a growing token made it quadratic).
      this.held.push(piece);
      this.heldLength += piece.length;
      if (!this.awaiting.endsIn(piece)) {
        if (this.heldLength > MAX_TOKEN_CHARS) throw tooLong();
        return;
      }
      piece = this.held.join('');
      this.held = [];
      this.heldLength = 0;
      this.awaiting = undefined;
    }
    const xml = this.left === '' ? piece : this.left + piece;
    this.left = '';
    const stopped = this.run(xml);
    if (stopped < xml.length) {
      const left = xml.slice(stopped);
      if (left.length > MAX_TOKEN_CHARS) throw tooLong();
      if (left.length < TokenEnd.MIN_LENGTH || left.charCodeAt(0) !== 60 /* < */) this.left = left;
      else {
        this.awaiting = new TokenEnd(left);
        this.held = [left];
        this.heldLength = left.length;
      }
    }
  }

  end(): void {
    if (this.awaiting) throw new RowFragmentError('The rows end inside a tag.');
    if (this.left !== '') {
      if (this.left.indexOf('<') >= 0) throw new RowFragmentError('The rows end inside a tag.');
      this.emitText(this.left);
      this.left = '';
    }
    if (this.stack.length > 0)
      throw new RowFragmentError(`Unclosed element <${this.stack[this.stack.length - 1]!.qname}>.`);
  }

  private currentScope(): NsScope {
    for (let i = this.stack.length - 1; i >= 0 && this.scoped > 0; i--) {
      const s = this.stack[i]!.scope;
      if (s) return s;
    }
    return this.scope;
  }

  private resolve(qname: string, scope: NsScope): ResolvedName {
    const useCache = scope === this.scope;
    if (useCache) {
      const known = this.names.get(qname);
      if (known) return known;
    }
    const colon = qname.indexOf(':');
    const prefix = colon < 0 ? '' : qname.slice(0, colon);
    const ns = scope.get(prefix);
    if (colon >= 0 && ns === undefined)
      throw new RowFragmentError(`The prefix "${prefix}" of <${qname}> is not declared.`);
    const local = colon < 0 ? qname : qname.slice(colon + 1);
    const uri = canonicalNs(ns ?? '');
    const main = isMainNs(uri);
    const kind =
      main && local === 'c' ? NameKind.Cell : main && local === 'row' ? NameKind.Row : NameKind.Other;
    const resolved: ResolvedName = { local, ns: uri, kind };
    if (useCache) this.names.set(qname, resolved);
    return resolved;
  }

  private emitText(raw: string): void {
    if (this.stack.length > 0) {
      try {
        this.text(decodeText(raw));
      } catch (error) {
        if (error instanceof XmlError) throw new RowFragmentError(error.message);
        throw error;
      }
    } else if (raw.trim() !== '') throw new RowFragmentError('Text outside of any element.');
  }

  /** Tokenizes `xml` as far as it is complete; returns where it stopped (the rest waits for more). */
  private run(xml: string): number {
    const { cell, rowStart } = this.handlers;
    const stack = this.stack;
    const n = xml.length;
    let pos = 0;
    while (pos < n) {
      const lt = xml.indexOf('<', pos);
      if (lt < 0) {
        // Keep back what may be the start of a reference or of a CR LF pair.
        let safe = n;
        const amp = xml.lastIndexOf('&');
        if (amp >= pos && amp > n - 16 && xml.indexOf(';', amp) < 0) safe = amp;
        if (xml.charCodeAt(safe - 1) === 13) safe--;
        if (safe > pos) this.emitText(xml.slice(pos, safe));
        return safe;
      }
      if (lt > pos) this.emitText(xml.slice(pos, lt));
      pos = lt;
      if (lt + 1 >= n) return lt;
      const next = xml.charCodeAt(lt + 1);

      if (next === 47 /* / */) {
        const gt = xml.indexOf('>', lt + 2);
        if (gt < 0) return lt;
        const qname = xml.slice(lt + 2, gt).trimEnd();
        const open = stack.pop();
        if (open === undefined || open.qname !== qname) {
          throw new RowFragmentError(`Closing tag </${qname}> does not match <${open?.qname ?? '(none)'}>.`);
        }
        if (open.scope) this.scoped--;
        this.close(open.local, open.ns);
        pos = gt + 1;
        continue;
      }
      if (next === 33 /* ! */) {
        if (xml.startsWith('<![CDATA[', lt)) {
          const end = xml.indexOf(']]>', lt + 9);
          if (end < 0) return lt;
          if (stack.length === 0) throw new RowFragmentError('CDATA outside of any element.');
          this.text(normalizeLineEnds(xml.slice(lt + 9, end)));
          pos = end + 3;
          continue;
        }
        if (xml.startsWith('<!--', lt)) {
          const end = xml.indexOf('-->', lt + 4);
          if (end < 0) return lt;
          pos = end + 3;
          continue;
        }
        if (n - lt < 9 && ('<![CDATA['.startsWith(xml.slice(lt)) || '<!--'.startsWith(xml.slice(lt))))
          return lt;
        throw new RowFragmentError('Unexpected markup declaration.');
      }
      if (next === 63 /* ? */) {
        const end = xml.indexOf('?>', lt + 2);
        if (end < 0) return lt;
        pos = end + 2;
        continue;
      }

      // A start tag: the name, then attributes, then `>` or `/>`.
      let i = lt + 1;
      while (i < n) {
        const code = xml.charCodeAt(i);
        if (isSpace(code) || code === 62 || code === 47) break;
        i++;
      }
      if (i >= n) return lt;
      if (i === lt + 1) throw new RowFragmentError('A tag without a name.');
      // The commonest names without a slice (`c` on every cell, `row` on every row).
      const qname =
        i === lt + 2 && xml.charCodeAt(lt + 1) === 99 /* c */
          ? 'c'
          : i === lt + 4 && xml.startsWith('row', lt + 1)
            ? 'row'
            : xml.slice(lt + 1, i);
      const inScope = this.scoped > 0 ? this.currentScope() : this.scope;
      const name = this.resolve(qname, inScope);
      if (stack.length >= this.maxDepth)
        throw new RowFragmentError(
          `Elements are nested more than ${this.maxDepth} levels deep (at <${qname}>); no workbook needs that many.`,
          true,
        );
      if (cell !== undefined && name.kind === NameKind.Cell) {
        const end = shortcutCell(xml, i, qname, cell);
        if (end > 0) {
          pos = end;
          continue;
        }
      }
      if (rowStart !== undefined && name.kind === NameKind.Row) {
        const end = shortcutRowStart(xml, i, rowStart);
        if (end > 0) {
          stack.push({ qname, local: name.local, ns: name.ns, scope: undefined });
          pos = end;
          continue;
        }
      }
      const parsed = this.startTag(xml, i, qname, inScope);
      if (parsed === undefined) return lt;
      const [end, attrs, list, selfClosing, declared] = parsed;
      const resolved = declared ? this.resolve(qname, declared) : name;
      this.open(resolved.local, attrs, { ns: resolved.ns, attrs: list });
      if (selfClosing) this.close(resolved.local, resolved.ns);
      else {
        stack.push({ qname, local: resolved.local, ns: resolved.ns, scope: declared });
        if (declared) this.scoped++;
      }
      pos = end;
    }
    return n;
  }

  /**
   * The attributes of the start tag whose name ends at `i`: [index after the tag, attributes by name,
   * attributes with namespaces, self-closing, the new scope if it declares namespaces]; undefined
   * when the tag is not complete in `xml`.
   */
  private startTag(
    xml: string,
    from: number,
    qname: string,
    scope: NsScope,
  ): [number, Record<string, string>, XmlAttribute[], boolean, NsScope | undefined] | undefined {
    const n = xml.length;
    let i = from;
    let attrs = NO_ATTRS;
    const raw: [string, string][] = [];
    let selfClosing = false;
    for (;;) {
      while (i < n && isSpace(xml.charCodeAt(i))) i++;
      if (i >= n) return undefined;
      const code = xml.charCodeAt(i);
      if (code === 62 /* > */) {
        i++;
        break;
      }
      if (code === 47 /* / */) {
        if (i + 1 >= n) return undefined;
        if (xml.charCodeAt(i + 1) !== 62) throw new RowFragmentError(`Broken tag <${qname}>.`);
        selfClosing = true;
        i += 2;
        break;
      }
      const eq = xml.indexOf('=', i);
      if (eq < 0)
        return xml.indexOf('>', i) < 0 ? undefined : fail(`Attribute without a value in <${qname}>.`);
      const name = attributeName(xml, i, eq);
      if (name === '' || /[\s"'<>/]/.test(name))
        throw new RowFragmentError(`Attribute without a value in <${qname}>.`);
      let q = eq + 1;
      while (q < n && isSpace(xml.charCodeAt(q))) q++;
      if (q >= n) return undefined;
      const quote = xml[q];
      if (quote !== '"' && quote !== "'") throw new RowFragmentError(`Unquoted attribute in <${qname}>.`);
      const close = xml.indexOf(quote, q + 1);
      if (close < 0) return undefined;
      if (attrs === NO_ATTRS) attrs = {};
      const value = xml.slice(q + 1, close);
      let decoded: string;
      try {
        decoded = value.indexOf('&') < 0 && !/[\t\n\r<]/.test(value) ? value : decodeAttribute(value);
      } catch (error) {
        throw new RowFragmentError((error as Error).message);
      }
      if (attrs[name] !== undefined)
        throw new RowFragmentError(`The attribute ${name} appears twice in <${qname}>.`);
      attrs[name] = decoded;
      raw.push([name, decoded]);
      i = close + 1;
    }
    let declared: Map<string, string> | undefined;
    for (const [name, value] of raw) {
      if (name === 'xmlns' || name.startsWith('xmlns:')) {
        declared ??= new Map(scope);
        declared.set(name === 'xmlns' ? '' : name.slice(6), value);
      }
    }
    const inScope = declared ?? scope;
    const list: XmlAttribute[] = raw.map(([name, value]) => {
      const colon = name.indexOf(':');
      const prefix = colon < 0 ? '' : name.slice(0, colon);
      let ns = '';
      if (name === 'xmlns' || prefix === 'xmlns') ns = XMLNS_NS;
      else if (prefix === 'xml') ns = XML_NS;
      else if (prefix !== '') {
        const bound = inScope.get(prefix);
        if (bound === undefined)
          throw new RowFragmentError(`The prefix "${prefix}" of ${name} is not declared.`);
        ns = bound;
      }
      return { qname: name, prefix, local: colon < 0 ? name : name.slice(colon + 1), ns, value };
    });
    return [i, attrs, list, selfClosing, declared];
  }
}

function tooLong(): RowFragmentError {
  return new RowFragmentError('A single tag, comment or CDATA section longer than 16 MB.', true);
}

/**
 * Finds where a token that began in an earlier piece ends, looking at each new piece once: the `>` of
 * a tag (outside quoted attribute values), or the `-->`, `]]>` or `?>` that ends a comment, CDATA
 * section or processing instruction. It only says that the end has arrived; the tokenizer then reads
 * the whole token as usual.
 */
class TokenEnd {
  /** Shorter rests are simply joined to the next piece (they may not even say what token they are). */
  static readonly MIN_LENGTH = 16;
  private readonly terminator: string;
  /** The last characters seen, for a terminator split between pieces. */
  private tail = '';
  /** In a start tag: the quote of the attribute value being read (0: none). */
  private quote = 0;
  private readonly startTag: boolean;
  /** The end was already there (the tokenizer stopped for another reason): read on at once. */
  private ended = false;

  constructor(token: string) {
    const [terminator, bodyStart] = token.startsWith('<!--')
      ? ['-->', 4]
      : token.startsWith('<![CDATA[')
        ? [']]>', 9]
        : token.startsWith('<?')
          ? ['?>', 2]
          : token.startsWith('</')
            ? ['>', 2]
            : ['>', 1];
    this.terminator = terminator;
    this.startTag = bodyStart === 1;
    this.ended = this.endsIn(token.slice(bodyStart));
  }

  endsIn(piece: string): boolean {
    if (this.ended) return true;
    if (this.startTag) {
      // The first `>` outside a quoted attribute value.
      let quote = this.quote;
      for (let i = 0; i < piece.length; i++) {
        const code = piece.charCodeAt(i);
        if (quote !== 0) {
          if (code === quote) quote = 0;
        } else if (code === 34 || code === 39) quote = code;
        else if (code === 62) return true;
      }
      this.quote = quote;
      return false;
    }
    if ((this.tail + piece.slice(0, 2)).indexOf(this.terminator) >= 0) return true;
    if (piece.indexOf(this.terminator) >= 0) return true;
    this.tail = (this.tail + piece).slice(-2);
    return false;
  }
}

function fail(message: string): never {
  throw new RowFragmentError(message);
}

/**
 * Parses `xml` (a sequence of elements without a single root, e.g. a run of `<row>` elements) in one
 * piece. Throws RowFragmentError when it is not well-formed.
 */
export function parseRowFragment(xml: string, handlers: SaxHandlers, scope: NsScope = ROOT_SCOPE): void {
  const tokenizer = new RowTokenizer(handlers, scope);
  tokenizer.write(xml);
  tokenizer.end();
}

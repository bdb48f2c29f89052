// The one XML reader of the package's parts, shared by extraction and editing: a streaming, strict,
// namespace-aware tokenizer that reports every element with its offsets (so editors can splice the text
// in place) and with names resolved from the declarations in force, wherever they were made. Text and
// attribute values come out as XML defines them: line ends normalised (CR LF and lone CR become LF),
// attribute whitespace normalised, the five predefined entities and character references resolved,
// CDATA sections taken literally. It is linear in its input whatever the chunking (a token split across
// any number of chunks is never rescanned) and caps element nesting, so a hostile part cannot exhaust
// the stack or the heap. DTDs are refused: OOXML forbids them, and they are how entity bombs arrive.
// Free of other dependencies so worker threads load it quickly.
import { XML_NS, XMLNS_NS } from './namespaces.js';

/** Prefix → namespace URI; `''` is the default namespace. Shared by elements that declare nothing. */
export type NsScope = ReadonlyMap<string, string>;

export const ROOT_SCOPE: NsScope = new Map([['xml', XML_NS]]);

export interface XmlAttribute {
  /** As written (`r:id`). */
  qname: string;
  prefix: string;
  local: string;
  /** Resolved namespace URI; `''` for an unprefixed attribute. */
  ns: string;
  /** Decoded and normalised value. */
  value: string;
}

export interface StartTag {
  qname: string;
  prefix: string;
  local: string;
  ns: string;
  attrs: XmlAttribute[];
  /** Offsets in the whole input: `input.slice(start, end)` is the start tag. */
  start: number;
  end: number;
  selfClosing: boolean;
  /** 1 for the root element. */
  depth: number;
  /** The declarations in force inside this element (its own included). */
  scope: NsScope;
}

export interface EndTag {
  qname: string;
  local: string;
  ns: string;
  /** Offsets of the end tag (both equal the start tag's end for a self-closing element). */
  start: number;
  end: number;
  depth: number;
}

export interface XmlTokenHandlers {
  open?(tag: StartTag): void;
  /** Also called, right after open, for a self-closing element. */
  close?(tag: EndTag): void;
  /** Character data (CDATA included), decoded; `start`/`end` are the raw offsets. */
  text?(text: string, start: number, end: number): void;
}

export interface TokenizerOptions {
  /** Deepest element nesting accepted (default 512; real workbooks stay far below 100). */
  maxDepth?: number;
  /** Declarations in force before the input starts (for fragments cut from a larger part). */
  scope?: NsScope;
  /** Accept several top-level elements and top-level text (runs of rows). */
  fragment?: boolean;
  /**
   * A piece of a part (a worksheet's head or tail): end tags of elements opened before it and elements
   * left open at its end are accepted; everything else is as strict as ever.
   */
  partial?: boolean;
}

export const DEFAULT_MAX_DEPTH = 512;

/** Not well-formed XML (or over a limit); `reason` says what and where. */
export class XmlError extends Error {
  override name = 'XmlError';
  constructor(
    message: string,
    readonly offset: number,
    readonly limit = false,
  ) {
    super(message);
  }
}

const enum Mode {
  Text,
  /** Saw `<` (and maybe `<!`, `<![CD…`): not yet known what follows. */
  Markup,
  StartTag,
  EndTag,
  Comment,
  Cdata,
  Pi,
}

const PREDEFINED: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

/** Line ends are normalised in pieces of this many characters (see normalizeLineEnds). */
const LINE_END_PIECE = 1 << 16;

/**
 * XML line-end normalisation: CR LF and lone CR become LF. Native split and join, in pieces: a regular
 * expression's replace took over a microsecond per CR, and one pass over tens of MB of them built
 * arrays big enough to keep the garbage collector busy for seconds (issue 14's long rows).
 */
export function normalizeLineEnds(text: string): string {
  return text.indexOf('\r') < 0 ? text : inPieces(text, normalizePiece);
}

function normalizePiece(text: string): string {
  return text.indexOf('\r') < 0 ? text : text.split('\r\n').join('\n').split('\r').join('\n');
}

/** Tabs and line feeds as spaces (attribute-value normalisation). */
function spacePiece(text: string): string {
  return text.split('\t').join(' ').split('\n').join(' ');
}

/** `edit` applied to pieces of `text` (never splitting a CR LF pair), so its garbage stays small. */
function inPieces(text: string, edit: (piece: string) => string): string {
  if (text.length <= LINE_END_PIECE) return edit(text);
  let out = '';
  for (let start = 0; start < text.length;) {
    let end = Math.min(text.length, start + LINE_END_PIECE);
    if (end < text.length && text.charCodeAt(end - 1) === 13) end++;
    out += edit(text.slice(start, end));
    start = end;
  }
  return out;
}

/** Resolves the predefined entities and character references; anything else is not well-formed. */
export function decodeEntities(text: string, offset = 0): string {
  if (text.indexOf('&') < 0) return text;
  let out = '';
  let pos = 0;
  for (;;) {
    const amp = text.indexOf('&', pos);
    if (amp < 0) break;
    const semi = text.indexOf(';', amp + 1);
    if (semi < 0 || semi - amp > 12) throw new XmlError('An "&" that starts no entity.', offset + amp);
    const name = text.slice(amp + 1, semi);
    let decoded: string | undefined;
    if (name.charCodeAt(0) === 35 /* # */) {
      const code = name[1] === 'x' ? parseInt(name.slice(2), 16) : parseInt(name.slice(1), 10);
      const digits = name[1] === 'x' ? /^#x[0-9A-Fa-f]+$/ : /^#[0-9]+$/;
      if (digits.test(name) && code > 0 && code <= 0x10ffff) decoded = String.fromCodePoint(code);
    } else {
      decoded = PREDEFINED[name];
    }
    if (decoded === undefined) throw new XmlError(`Undefined entity "&${name};".`, offset + amp);
    out += text.slice(pos, amp) + decoded;
    pos = semi + 1;
  }
  return out + text.slice(pos);
}

/** Text content: line ends normalised, then references resolved. */
export function decodeText(raw: string, offset = 0): string {
  return decodeEntities(normalizeLineEnds(raw), offset);
}

/** An attribute value: line ends normalised, tabs and newlines become spaces, references resolved. */
export function decodeAttribute(raw: string, offset = 0): string {
  if (raw.indexOf('<') >= 0) throw new XmlError('"<" inside an attribute value.', offset);
  let text = normalizeLineEnds(raw);
  if (/[\t\n]/.test(text)) text = inPieces(text, spacePiece);
  return decodeEntities(text, offset);
}

function isSpace(code: number): boolean {
  return code === 32 || code === 10 || code === 13 || code === 9;
}

function splitName(qname: string, offset: number): [string, string] {
  const colon = qname.indexOf(':');
  if (colon < 0) return ['', qname];
  if (colon === 0 || colon === qname.length - 1 || qname.indexOf(':', colon + 1) >= 0)
    throw new XmlError(`"${qname}" is not a valid qualified name.`, offset);
  return [qname.slice(0, colon), qname.slice(colon + 1)];
}

/**
 * A push tokenizer: `write` text as it arrives (any chunking), `end` when done. Offsets count UTF-16
 * code units from the start of the input (a leading byte-order mark counts, and is skipped).
 */
export class XmlTokenizer {
  private mode = Mode.Text;
  /** The token being read (`<...`), when it spans chunks. */
  private token = '';
  private tokenStart = 0;
  private text = '';
  private textStart = 0;
  private quote = 0;
  /** Consecutive `-` (comments), `]` (CDATA) or a `?` (PIs) just before the current position. */
  private run = 0;
  private base = 0;
  private readonly stack: { qname: string; scope: NsScope; local: string; ns: string }[] = [];
  private seenRoot = false;
  private readonly maxDepth: number;
  private readonly fragment: boolean;
  private readonly partial: boolean;
  private readonly initialScope: NsScope;

  constructor(
    private readonly handlers: XmlTokenHandlers,
    options: TokenizerOptions = {},
  ) {
    this.maxDepth = options.maxDepth ?? DEFAULT_MAX_DEPTH;
    this.fragment = options.fragment ?? false;
    this.partial = options.partial ?? false;
    this.initialScope = options.scope ?? ROOT_SCOPE;
  }

  /** The scope in force at the current position. */
  get scope(): NsScope {
    return this.stack.length ? this.stack[this.stack.length - 1]!.scope : this.initialScope;
  }

  get depth(): number {
    return this.stack.length;
  }

  write(chunk: string): void {
    const n = chunk.length;
    let i = 0;
    if (this.base === 0 && n > 0 && chunk.charCodeAt(0) === 0xfeff) i = 1;
    while (i < n) {
      switch (this.mode) {
        case Mode.Text: {
          const lt = chunk.indexOf('<', i);
          const end = lt < 0 ? n : lt;
          if (end > i) {
            if (this.text === '') this.textStart = this.base + i;
            this.text += chunk.slice(i, end);
          }
          if (lt < 0) {
            i = n;
            break;
          }
          this.flushText(this.base + lt);
          this.mode = Mode.Markup;
          this.token = '<';
          this.tokenStart = this.base + lt;
          i = lt + 1;
          break;
        }
        case Mode.Markup: {
          // Decide what follows `<` from at most 9 characters, which may arrive one at a time.
          const need = Math.min(n - i, 9 - this.token.length);
          this.token += chunk.slice(i, i + need);
          const consumed = this.classify();
          // classify() keeps `token` as what was consumed so far; give back what it did not use.
          i += need - consumed;
          break;
        }
        case Mode.StartTag: {
          let j = i;
          let quote = this.quote;
          for (; j < n; j++) {
            const code = chunk.charCodeAt(j);
            if (quote !== 0) {
              if (code === quote) quote = 0;
            } else if (code === 34 || code === 39) quote = code;
            else if (code === 62 /* > */) break;
          }
          this.quote = quote;
          if (j === n) {
            this.token += chunk.slice(i);
            i = n;
            break;
          }
          this.token += chunk.slice(i, j + 1);
          i = j + 1;
          this.mode = Mode.Text;
          this.startTag(this.token, this.tokenStart);
          this.token = '';
          break;
        }
        case Mode.EndTag: {
          const gt = chunk.indexOf('>', i);
          if (gt < 0) {
            this.token += chunk.slice(i);
            i = n;
            break;
          }
          this.token += chunk.slice(i, gt + 1);
          i = gt + 1;
          this.mode = Mode.Text;
          this.endTag(this.token, this.tokenStart);
          this.token = '';
          break;
        }
        case Mode.Comment:
        case Mode.Cdata:
        case Mode.Pi: {
          const mark =
            this.mode === Mode.Comment ? 45 /* - */ : this.mode === Mode.Cdata ? 93 /* ] */ : 63; /* ? */
          const want = this.mode === Mode.Pi ? 1 : 2;
          let j = i;
          let run = this.run;
          for (; j < n; j++) {
            const code = chunk.charCodeAt(j);
            if (code === 62 /* > */ && run >= want) break;
            if (code === mark) run++;
            else {
              if (this.mode === Mode.Comment && run >= 2)
                throw new XmlError('"--" inside a comment.', this.base + j);
              run = 0;
            }
          }
          this.run = run;
          if (j === n) {
            if (this.mode === Mode.Cdata) this.token += chunk.slice(i);
            i = n;
            break;
          }
          if (this.mode === Mode.Cdata) {
            const body = (this.token + chunk.slice(i, j)).slice(0, -2);
            this.cdata(body);
          }
          this.token = '';
          this.run = 0;
          i = j + 1;
          this.mode = Mode.Text;
          break;
        }
      }
    }
    this.base += n;
  }

  /** Checks that the input ended where a document (or fragment) may end, and flushes trailing text. */
  end(): void {
    if (this.mode !== Mode.Text) throw new XmlError('The text ends inside a tag.', this.base);
    this.flushText(this.base);
    if (this.partial) return;
    if (this.stack.length > 0)
      throw new XmlError(
        `The element <${this.stack[this.stack.length - 1]!.qname}> is never closed.`,
        this.base,
      );
    if (!this.fragment && !this.seenRoot) throw new XmlError('No root element.', this.base);
  }

  /**
   * Looks at the first characters after `<` (in `token`) and switches mode. Returns how many of the
   * characters appended to `token` it did not consume (they go back to the input).
   */
  private classify(): number {
    const t = this.token;
    if (t.length < 2) return 0;
    const second = t.charCodeAt(1);
    if (second === 47 /* / */) return this.switchTo(Mode.EndTag, 2);
    if (second === 63 /* ? */) return this.switchTo(Mode.Pi, 2);
    if (second !== 33 /* ! */) return this.switchTo(Mode.StartTag, 1);
    if (t.startsWith('<!--')) return this.switchTo(Mode.Comment, 4);
    if (t.startsWith('<![CDATA[')) return this.switchTo(Mode.Cdata, 9);
    if ('<!--'.startsWith(t) || '<![CDATA['.startsWith(t)) return 0; // need more characters
    if (t.startsWith('<!DOCTYPE') || '<!DOCTYPE'.startsWith(t)) {
      if (t.length < 9) return 0;
      throw new XmlError(
        'A document type declaration (DTD), which OOXML parts may not have.',
        this.tokenStart,
      );
    }
    throw new XmlError('Unexpected markup declaration.', this.tokenStart);
  }

  /** Enters `mode` having consumed `keep` characters of `token`; returns how many to give back. */
  private switchTo(mode: Mode, keep: number): number {
    const giveBack = this.token.length - keep;
    this.token = this.token.slice(0, keep);
    this.mode = mode;
    this.quote = 0;
    this.run = 0;
    if (mode === Mode.Cdata) {
      this.token = '';
      if (this.stack.length === 0 && !this.fragment && !this.partial)
        throw new XmlError('CDATA outside the root element.', this.tokenStart);
    }
    if (mode === Mode.Comment || mode === Mode.Pi) this.token = '';
    return giveBack;
  }

  private flushText(end: number): void {
    if (this.text === '') return;
    const raw = this.text;
    this.text = '';
    if (this.stack.length === 0 && !this.fragment && !this.partial) {
      if (raw.trim() !== '') throw new XmlError('Text outside the root element.', this.textStart);
      return;
    }
    const decoded = decodeText(raw, this.textStart); // checked even when nobody listens: well-formedness
    this.handlers.text?.(decoded, this.textStart, end);
  }

  private cdata(body: string): void {
    const start = this.tokenStart;
    this.handlers.text?.(normalizeLineEnds(body), start, start + body.length + 12);
  }

  private startTag(tag: string, start: number): void {
    const n = tag.length;
    const selfClosing = tag.charCodeAt(n - 2) === 47; /* / */
    const bodyEnd = selfClosing ? n - 2 : n - 1;
    let i = 1;
    while (i < bodyEnd && !isSpace(tag.charCodeAt(i))) i++;
    const qname = tag.slice(1, i);
    if (qname === '' || qname.indexOf('/') >= 0 || qname.indexOf('"') >= 0 || qname.indexOf("'") >= 0)
      throw new XmlError(`A start tag without a valid name: ${tag.slice(0, 40)}`, start);
    const raw: { qname: string; value: string; at: number }[] = [];
    for (;;) {
      while (i < bodyEnd && isSpace(tag.charCodeAt(i))) i++;
      if (i >= bodyEnd) break;
      const eq = tag.indexOf('=', i);
      if (eq < 0 || eq >= bodyEnd)
        throw new XmlError(`An attribute without a value in <${qname}>.`, start + i);
      const name = tag.slice(i, eq).trimEnd();
      if (name === '' || /[\s"'<>/]/.test(name))
        throw new XmlError(`A malformed attribute in <${qname}>.`, start + i);
      let q = eq + 1;
      while (q < bodyEnd && isSpace(tag.charCodeAt(q))) q++;
      const quote = tag.charCodeAt(q);
      if (quote !== 34 && quote !== 39) throw new XmlError(`An unquoted attribute in <${qname}>.`, start + q);
      const close = tag.indexOf(quote === 34 ? '"' : "'", q + 1);
      if (close < 0 || close >= bodyEnd)
        throw new XmlError(`An unterminated attribute in <${qname}>.`, start + q);
      raw.push({
        qname: name,
        value: decodeAttribute(tag.slice(q + 1, close), start + q + 1),
        at: start + i,
      });
      i = close + 1;
      if (i < bodyEnd && !isSpace(tag.charCodeAt(i)))
        throw new XmlError(`Attributes not separated by white space in <${qname}>.`, start + i);
    }
    // Declarations first: they apply to the element's own name and attributes.
    const parentScope = this.scope;
    let scope = parentScope;
    for (const a of raw) {
      if (a.qname === 'xmlns' || a.qname.startsWith('xmlns:')) {
        if (scope === parentScope) scope = new Map(parentScope);
        const prefix = a.qname === 'xmlns' ? '' : a.qname.slice(6);
        if (prefix === 'xmlns' || (prefix !== '' && a.value === ''))
          throw new XmlError(`The declaration ${a.qname}="${a.value}" is not allowed.`, a.at);
        (scope as Map<string, string>).set(prefix, a.value);
      }
    }
    const [prefix, local] = splitName(qname, start);
    const ns = scope.get(prefix) ?? '';
    if (prefix !== '' && !scope.has(prefix))
      throw new XmlError(`The prefix "${prefix}" of <${qname}> is not declared.`, start);
    const attrs: XmlAttribute[] = [];
    const seen = new Set<string>();
    for (const a of raw) {
      if (seen.has(a.qname))
        throw new XmlError(`The attribute ${a.qname} appears twice in <${qname}>.`, a.at);
      seen.add(a.qname);
      const [aPrefix, aLocal] = splitName(a.qname, a.at);
      let aNs = '';
      if (a.qname === 'xmlns' || aPrefix === 'xmlns') aNs = XMLNS_NS;
      else if (aPrefix !== '') {
        const bound = scope.get(aPrefix);
        if (bound === undefined)
          throw new XmlError(`The prefix "${aPrefix}" of the attribute ${a.qname} is not declared.`, a.at);
        aNs = bound;
      }
      attrs.push({ qname: a.qname, prefix: aPrefix, local: aLocal, ns: aNs, value: a.value });
    }
    if (this.stack.length === 0 && !this.fragment && !this.partial) {
      if (this.seenRoot) throw new XmlError('More than one root element.', start);
      this.seenRoot = true;
    }
    this.seenRoot = true;
    const depth = this.stack.length + 1;
    if (depth > this.maxDepth)
      throw new XmlError(
        `Elements are nested more than ${this.maxDepth} levels deep (at <${qname}>); no workbook needs that many.`,
        start,
        true,
      );
    const end = start + n;
    this.handlers.open?.({ qname, prefix, local, ns, attrs, start, end, selfClosing, depth, scope });
    if (selfClosing) this.handlers.close?.({ qname, local, ns, start: end, end, depth });
    else this.stack.push({ qname, scope, local, ns });
  }

  private endTag(tag: string, start: number): void {
    const qname = tag.slice(2, -1).trimEnd();
    const open = this.stack.pop();
    if (!open) {
      if (!this.partial) throw new XmlError(`The end tag </${qname}> closes nothing.`, start);
      // An element opened before this piece of the part: resolve its name in the scope we were given.
      const colon = qname.indexOf(':');
      const local = colon < 0 ? qname : qname.slice(colon + 1);
      const ns = this.initialScope.get(colon < 0 ? '' : qname.slice(0, colon)) ?? '';
      this.handlers.close?.({ qname, local, ns, start, end: start + tag.length, depth: 0 });
      return;
    }
    if (open.qname !== qname)
      throw new XmlError(`The end tag </${qname}> does not match <${open.qname}>.`, start);
    this.handlers.close?.({
      qname,
      local: open.local,
      ns: open.ns,
      start,
      end: start + tag.length,
      depth: this.stack.length + 1,
    });
  }
}

/** Tokenizes a whole text. */
export function tokenizeXml(text: string, handlers: XmlTokenHandlers, options: TokenizerOptions = {}): void {
  const tokenizer = new XmlTokenizer(handlers, options);
  tokenizer.write(text);
  tokenizer.end();
}

/** An attribute value by local name and namespace (`''` for unprefixed attributes). */
export function attrValue(tag: StartTag, local: string, ns = ''): string | undefined {
  for (const a of tag.attrs) if (a.local === local && a.ns === ns) return a.value;
  return undefined;
}

/** A prefix bound to `ns` in `scope` (`''` for the default namespace), or undefined. */
export function prefixFor(scope: NsScope, ns: string, forAttribute = false): string | undefined {
  if (!forAttribute && scope.get('') === ns) return '';
  for (const [prefix, uri] of scope)
    if (uri === ns && prefix !== '' && scope.get(prefix) === uri) return prefix;
  return undefined;
}

/**
 * How to write a name of `ns` where `scope` is in force: the qualified name, and a declaration to add to
 * the element when no prefix is bound to `ns` there (`preferred` is the prefix to declare).
 */
export function qualify(
  scope: NsScope,
  ns: string,
  local: string,
  preferred: string,
  forAttribute = false,
): { qname: string; declaration: string } {
  const bound = prefixFor(scope, ns, forAttribute);
  if (bound !== undefined) return { qname: bound === '' ? local : `${bound}:${local}`, declaration: '' };
  let prefix = preferred;
  for (let n = 1; scope.has(prefix); n++) prefix = `${preferred}${n}`;
  return { qname: `${prefix}:${local}`, declaration: ` xmlns:${prefix}="${ns}"` };
}

import { unescapeOoxmlText } from '../ooxml/ooxml-text.js';
import {
  decodeText,
  ROOT_SCOPE,
  tokenizeXml,
  type NsScope,
  type XmlAttribute,
} from '../ooxml/xml-tokenizer.js';

/**
 * Small, byte-faithful XML helpers for OOXML surgery: parts are edited in place (a tag inserted,
 * an attribute changed) so everything we do not touch stays exactly as it was.
 */

const XML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' };

/** Characters XML 1.0 cannot carry even escaped; OOXML spells them `_xHHHH_`. */
// eslint-disable-next-line no-control-regex
const INVALID_XML_CHARS = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/g;

/**
 * A cell's text as ST_Xstring: `_xHHHH_` escapes for characters XML cannot hold. A CR goes as a character
 * reference: written raw, an XML reader turns it into LF; Excel's `_x000D_` is left undecoded by openpyxl.
 */
export function escapeXmlText(text: string): string {
  return text
    .replace(/_x([0-9A-Fa-f]{4})_/g, '_x005F_x$1_')
    .replace(INVALID_XML_CHARS, (ch) => `_x${ch.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}_`)
    .replace(/[&<>]/g, (ch) => XML_ESCAPES[ch]!)
    .replace(/\r/g, '&#13;');
}

/** Plain XML escaping (formulas are not ST_Xstring: no `_xHHHH_` escapes). */
export function escapeXml(text: string): string {
  return text.replace(/[&<>]/g, (ch) => XML_ESCAPES[ch]!);
}

export function escapeXmlAttr(text: string): string {
  // Tabs and line ends as character references: written raw, a reader turns them into spaces.
  return text
    .replace(INVALID_XML_CHARS, '')
    .replace(/[&<>"\t\n\r]/g, (ch) => XML_ESCAPES[ch] ?? `&#${ch.charCodeAt(0)};`);
}

/** Decodes a raw text node as XML does (line ends, entities) and, by default, OOXML's `_xHHHH_` escapes. */
export function decodeXmlText(text: string, ooxmlEscapes = true): string {
  const decoded = decodeText(text);
  return ooxmlEscapes ? unescapeOoxmlText(decoded) : decoded;
}

/** An element located in a text: its start tag, and where its content and end tag are. */
export interface Located {
  /** Qualified name as written (`x:row`). */
  qname: string;
  local: string;
  /** Resolved namespace URI (`''` when the text does not declare it, see `parseTree`). */
  ns: string;
  /** Attributes by qualified name, values decoded. */
  attrs: Map<string, string>;
  /** The attributes with their resolved namespaces. */
  nsAttrs: XmlAttribute[];
  /** Namespace declarations in force inside the element. */
  scope: NsScope;
  start: number;
  /** Offset just past the start tag. */
  openEnd: number;
  /** Offset of the end tag (== openEnd for an empty element). */
  closeStart: number;
  /** Offset just past the whole element. */
  end: number;
  empty: boolean;
  children: Located[];
}

export interface TreeOptions {
  /** Declarations in force where the text starts (for pieces of a part: a head, a tail, a snippet). */
  scope?: NsScope;
}

/** Prefixes a piece of a part may use without declaring them (its root declared them). */
const LENIENT_SCOPE_LIMIT = 64;

/**
 * The elements of an XML text (a whole part, or a piece of one such as a worksheet's head or tail) as
 * a tree with offsets, read by the package's one tokenizer: names resolved from their declarations,
 * attributes in either quote, entities and line ends as XML defines them. The top-level elements are
 * the returned list. A piece may end with elements still open (their `end` is then the text's end) and
 * start with end tags of elements opened before it. Prefixes a piece uses without a declaration in
 * `scope` resolve to `''` rather than failing: a piece cut from a part cannot carry its root's
 * declarations, and the part as a whole was checked when it was read.
 */
export function parseTree(text: string, options: TreeOptions = {}): Located[] {
  const top: Located[] = [];
  const stack: Located[] = [];
  const scope = withUndeclared(text, options.scope ?? ROOT_SCOPE);
  tokenizeXml(
    text,
    {
      open(tag) {
        const node: Located = {
          qname: tag.qname,
          local: tag.local,
          ns: tag.ns,
          attrs: new Map(tag.attrs.map((a) => [a.qname, a.value])),
          nsAttrs: tag.attrs,
          scope: tag.scope,
          start: tag.start,
          openEnd: tag.end,
          closeStart: tag.end,
          end: tag.end,
          empty: tag.selfClosing,
          children: [],
        };
        (stack.length ? stack[stack.length - 1]!.children : top).push(node);
        if (!tag.selfClosing) stack.push(node);
      },
      close(tag) {
        // (A self-closing element was never pushed; depth 0 closes one opened before this piece.)
        if (tag.depth === 0 || tag.start === tag.end) return;
        const node = stack.pop();
        if (node && !node.empty) {
          node.closeStart = tag.start;
          node.end = tag.end;
        }
      },
    },
    { partial: true, scope },
  );
  for (const open of stack) open.closeStart = open.end = text.length;
  return top;
}

/** The scope plus an empty binding for each prefix the text uses that it does not declare. */
function withUndeclared(text: string, scope: NsScope): NsScope {
  let extended: Map<string, string> | undefined;
  const re = /<\/?([A-Za-z_][\w.-]*):|\s([A-Za-z_][\w.-]*):[\w.-]+\s*=/g;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    const prefix = m[1] ?? m[2]!;
    if (prefix === 'xmlns' || scope.has(prefix) || extended?.has(prefix)) continue;
    if (text.includes(`xmlns:${prefix}=`)) continue;
    extended ??= new Map(scope);
    extended.set(prefix, '');
    if (extended.size > LENIENT_SCOPE_LIMIT) break;
  }
  return extended ?? scope;
}

/** Every element of a tree, in document order. */
export function* walk(nodes: readonly Located[]): Generator<Located> {
  const stack = [...nodes].reverse();
  while (stack.length) {
    const node = stack.pop()!;
    yield node;
    for (let i = node.children.length - 1; i >= 0; i--) stack.push(node.children[i]!);
  }
}

export interface FindOptions extends TreeOptions {
  /** Only elements of these namespaces (default: any). */
  ns?: readonly string[];
}

/** Finds the first element with this local name (any depth, document order). */
export function findElement(text: string, localName: string, options: FindOptions = {}): Located | undefined {
  for (const node of walk(parseTree(text, options))) {
    if (node.local === localName && (!options.ns || options.ns.includes(node.ns))) return node;
  }
  return undefined;
}

/** Every direct child element of `parent` (found in the same text), in order. */
export function childElements(_text: string, parent: Located): Located[] {
  return parent.children;
}

/**
 * The declarations in force inside a worksheet's sheetData, from the part's head (everything up to
 * and including the sheetData start tag, or up to an empty `<sheetData/>`).
 */
export function sheetDataScope(head: string): NsScope {
  const top = parseTree(head);
  for (const node of walk(top)) if (node.local === 'sheetData') return node.scope;
  return top.find((node) => node.children.length > 0 || !node.empty)?.scope ?? top[0]?.scope ?? ROOT_SCOPE;
}

/** The attributes of the first start tag of a text (a tag alone or a whole element), values decoded. */
export function parseAttrs(tag: string): Map<string, string> {
  const start = tag.indexOf('<');
  if (start < 0) return new Map();
  const end = tagEnd(tag, start);
  const first = tag.slice(start, end < 0 ? tag.length : end);
  const text = first.endsWith('/>') ? first : `${first.endsWith('>') ? first.slice(0, -1) : first}/>`;
  return parseTree(text)[0]?.attrs ?? new Map<string, string>();
}

/** Offset just past the `>` that ends the tag starting at `start`, honouring quoted attributes. */
function tagEnd(text: string, start: number): number {
  let quote = 0;
  for (let i = start + 1; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (quote) {
      if (code === quote) quote = 0;
    } else if (code === 34 || code === 39) quote = code;
    else if (code === 62) return i + 1;
  }
  return -1;
}

/** Rebuilds a start tag from a name and attributes (values escaped). */
export function buildTag(qname: string, attrs: Map<string, string>, empty: boolean): string {
  let out = `<${qname}`;
  for (const [key, value] of attrs) out += ` ${key}="${escapeXmlAttr(value)}"`;
  return out + (empty ? '/>' : '>');
}

/** The namespace prefix (with colon) of a qualified name: `x:row` → `x:`, `row` → ``. */
export function prefixOf(qname: string): string {
  const colon = qname.indexOf(':');
  return colon === -1 ? '' : qname.slice(0, colon + 1);
}

/** Replaces `[start, end)` of a text. */
export function splice(text: string, start: number, end: number, insert: string): string {
  return text.slice(0, start) + insert + text.slice(end);
}

/** Puts `children` at the end of an element's content, opening it first when it is empty (`<x/>`). */
export function appendChildren(text: string, element: Located, children: string): string {
  if (!element.empty) return splice(text, element.closeStart, element.closeStart, children);
  const open = text.slice(element.start, element.end).replace(/\s*\/>$/, '>');
  return splice(text, element.start, element.end, `${open}${children}</${element.qname}>`);
}

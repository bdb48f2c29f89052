import { decodeXmlEntities, unescapeOoxmlText } from '../ooxml/ooxml-text.js';

/**
 * Small, byte-faithful XML helpers for OOXML surgery: parts are edited in place (a tag inserted,
 * an attribute changed) so everything we do not touch stays exactly as it was.
 */

const XML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' };

/** Characters XML 1.0 cannot carry even escaped; OOXML spells them `_xHHHH_`. */
// eslint-disable-next-line no-control-regex
const INVALID_XML_CHARS = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/g;

export function escapeXmlText(text: string): string {
  return text
    .replace(/_x([0-9A-Fa-f]{4})_/g, '_x005F_x$1_')
    .replace(INVALID_XML_CHARS, (ch) => `_x${ch.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}_`)
    .replace(/[&<>]/g, (ch) => XML_ESCAPES[ch]!);
}

/** Plain XML escaping (formulas are not ST_Xstring: no `_xHHHH_` escapes). */
export function escapeXml(text: string): string {
  return text.replace(/[&<>]/g, (ch) => XML_ESCAPES[ch]!);
}

export function escapeXmlAttr(text: string): string {
  return text.replace(INVALID_XML_CHARS, '').replace(/[&<>"]/g, (ch) => XML_ESCAPES[ch]!);
}

/** Decodes entities and the OOXML `_xHHHH_` escapes of a text node or attribute value. */
export function decodeXmlText(text: string, ooxmlEscapes = true): string {
  const decoded = decodeXmlEntities(text);
  return ooxmlEscapes ? unescapeOoxmlText(decoded) : decoded;
}

export interface Tag {
  /** Qualified name as written (`x:row`). */
  qname: string;
  /** Local name (`row`). */
  name: string;
  kind: 'open' | 'close' | 'empty';
  /** Offsets in the scanned text: `text.slice(start, end)` is the whole tag. */
  start: number;
  end: number;
}

/**
 * Iterates the tags of an XML text in document order (comments, processing instructions, CDATA
 * and the doctype are skipped). Attribute values may contain `>`.
 */
export function* scanTags(text: string, from = 0, to = text.length): Generator<Tag> {
  let i = text.indexOf('<', from);
  while (i !== -1 && i < to) {
    const next = text.charCodeAt(i + 1);
    if (next === 33 /* ! */) {
      const close = text.startsWith('<!--', i)
        ? text.indexOf('-->', i + 4) + 3
        : text.startsWith('<![CDATA[', i)
          ? text.indexOf(']]>', i + 9) + 3
          : text.indexOf('>', i + 2) + 1;
      if (close <= 2) return;
      i = text.indexOf('<', close);
      continue;
    }
    if (next === 63 /* ? */) {
      const close = text.indexOf('?>', i + 2);
      if (close === -1) return;
      i = text.indexOf('<', close + 2);
      continue;
    }
    const end = tagEnd(text, i);
    if (end === -1) return;
    const closing = next === 47; /* / */
    const nameStart = closing ? i + 2 : i + 1;
    let nameEnd = nameStart;
    while (nameEnd < end && !isNameEnd(text.charCodeAt(nameEnd))) nameEnd++;
    const qname = text.slice(nameStart, nameEnd);
    const colon = qname.indexOf(':');
    const kind = closing ? 'close' : text.charCodeAt(end - 2) === 47 ? 'empty' : 'open';
    yield { qname, name: colon === -1 ? qname : qname.slice(colon + 1), kind, start: i, end };
    i = text.indexOf('<', end);
  }
}

function isNameEnd(code: number): boolean {
  return code === 32 || code === 9 || code === 10 || code === 13 || code === 47 || code === 62;
}

/** Offset just past the `>` that ends the tag starting at `start`, honouring quoted attributes. */
export function tagEnd(text: string, start: number): number {
  let quote = 0;
  for (let i = start + 1; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (quote) {
      if (code === quote) quote = 0;
    } else if (code === 34 || code === 39) {
      quote = code;
    } else if (code === 62) {
      return i + 1;
    }
  }
  return -1;
}

const ATTR = /([^\s=/>]+)\s*=\s*(?:"([^"]*)"|'([^']*)')/g;

/** The attributes of one start tag, in written order, values decoded. */
export function parseAttrs(tag: string): Map<string, string> {
  const attrs = new Map<string, string>();
  const nameEnd = tag.search(/[\s/>]/);
  ATTR.lastIndex = nameEnd === -1 ? tag.length : nameEnd;
  for (let m = ATTR.exec(tag); m; m = ATTR.exec(tag)) {
    attrs.set(m[1]!, decodeXmlText(m[2] ?? m[3] ?? '', false));
  }
  return attrs;
}

/** Rebuilds a start tag from a name and attributes (values escaped). */
export function buildTag(qname: string, attrs: Map<string, string>, empty: boolean): string {
  let out = `<${qname}`;
  for (const [key, value] of attrs) out += ` ${key}="${escapeXmlAttr(value)}"`;
  return out + (empty ? '/>' : '>');
}

/** An element located in a text: its start tag, and where its content and end tag are. */
export interface Located {
  qname: string;
  start: number;
  /** Offset just past the start tag. */
  openEnd: number;
  /** Offset of the end tag (== openEnd for an empty element). */
  closeStart: number;
  /** Offset just past the whole element. */
  end: number;
  empty: boolean;
}

/** Finds the first element with this local name at or after `from` (any depth). */
export function findElement(
  text: string,
  localName: string,
  from = 0,
  to = text.length,
): Located | undefined {
  const tags = scanTags(text, from, to);
  for (const tag of tags) {
    if (tag.name === localName && tag.kind !== 'close') return elementFrom(tag, tags);
  }
  return undefined;
}

/** Every direct child element of the element `parent` (its content range), in order. */
export function childElements(text: string, parent: Located): Located[] {
  const children: Located[] = [];
  let pos = parent.openEnd;
  while (pos < parent.closeStart) {
    const tags = scanTags(text, pos, parent.closeStart);
    const first = tags.next();
    if (first.done || first.value.kind === 'close') break;
    const child = elementFrom(first.value, tags);
    if (!child) break;
    children.push(child);
    pos = child.end;
  }
  return children;
}

/** The element that `start` (a start or empty tag) opens, reading the following tags up to its end tag. */
function elementFrom(start: Tag, following: Iterator<Tag>): Located | undefined {
  if (start.kind === 'empty') {
    return {
      qname: start.qname,
      start: start.start,
      openEnd: start.end,
      closeStart: start.end,
      end: start.end,
      empty: true,
    };
  }
  let depth = 1;
  for (let next = following.next(); !next.done; next = following.next()) {
    const tag = next.value;
    if (tag.qname !== start.qname) continue;
    if (tag.kind === 'open') depth++;
    else if (tag.kind === 'close' && --depth === 0) {
      return {
        qname: start.qname,
        start: start.start,
        openEnd: start.end,
        closeStart: tag.start,
        end: tag.end,
        empty: false,
      };
    }
  }
  return undefined;
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

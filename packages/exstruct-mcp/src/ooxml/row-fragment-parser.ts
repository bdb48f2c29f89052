// A small, strict XML tokenizer for runs of `<row>` elements cut from sheetData — the hot loop of big
// extractions. Sheet rows use a tiny part of XML (elements, attributes, text, entities, CDATA), so a
// dedicated indexOf-driven scanner does in one pass what a general SAX parser does in several, and it
// still rejects what is not well-formed (unclosed, mismatched or broken tags). Free of other
// dependencies so worker threads load it quickly.
import { isAscii } from 'node:buffer';
import { decodeXmlEntities } from './ooxml-text.js';
import type { SaxHandlers } from './sax.js';

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
}

function localOf(qname: string): string {
  const colon = qname.indexOf(':');
  return colon < 0 ? qname : qname.slice(colon + 1);
}

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
    formula = decodeXmlEntities(xml.slice(i + fOpen.length, end));
    i = end + fClose.length;
  }
  const vOpen = prefix === '' ? '<v>' : `<${prefix}v>`;
  if (!xml.startsWith(vOpen, i)) return 0;
  const end = xml.indexOf('<', i + vOpen.length);
  const vClose = prefix === '' ? '</v></c>' : `</${prefix}v></${qname}>`;
  if (end < 0 || !xml.startsWith(vClose, end)) return 0;
  const value = xml.slice(i + vOpen.length, end);
  cell(col, type, style, value.indexOf('&') < 0 ? value : decodeXmlEntities(value), formula);
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

/**
 * Parses `xml` (a sequence of elements without a single root) and reports element names without their
 * namespace prefix, as the saxes-based parsers do. Throws RowFragmentError when it is not well-formed.
 */
export function parseRowFragment(xml: string, handlers: SaxHandlers): void {
  const open = handlers.open ?? (() => undefined);
  const close = handlers.close ?? (() => undefined);
  const text = handlers.text ?? (() => undefined);
  const cell = handlers.cell;
  const rowStart = handlers.rowStart;
  const stack: string[] = [];
  const n = xml.length;
  let pos = 0;
  while (pos < n) {
    const lt = xml.indexOf('<', pos);
    const textEnd = lt < 0 ? n : lt;
    if (textEnd > pos) {
      const raw = xml.slice(pos, textEnd);
      if (stack.length > 0) text(decodeXmlEntities(raw));
      else if (raw.trim() !== '') throw new RowFragmentError('Text outside of any element.');
    }
    if (lt < 0) break;
    const next = xml.charCodeAt(lt + 1);

    if (next === 47 /* / */) {
      const gt = xml.indexOf('>', lt + 2);
      if (gt < 0) throw new RowFragmentError('Unterminated closing tag.');
      const qname = xml.slice(lt + 2, gt).trimEnd();
      const expected = stack.pop();
      if (expected !== qname) {
        throw new RowFragmentError(`Closing tag </${qname}> does not match <${expected ?? '(none)'}>.`);
      }
      close(localOf(qname));
      pos = gt + 1;
      continue;
    }
    if (next === 33 /* ! */) {
      if (xml.startsWith('<![CDATA[', lt)) {
        const end = xml.indexOf(']]>', lt + 9);
        if (end < 0) throw new RowFragmentError('Unterminated CDATA section.');
        if (stack.length === 0) throw new RowFragmentError('CDATA outside of any element.');
        text(xml.slice(lt + 9, end));
        pos = end + 3;
        continue;
      }
      if (xml.startsWith('<!--', lt)) {
        const end = xml.indexOf('-->', lt + 4);
        if (end < 0) throw new RowFragmentError('Unterminated comment.');
        pos = end + 3;
        continue;
      }
      throw new RowFragmentError('Unexpected markup declaration.');
    }
    if (next === 63 /* ? */) {
      const end = xml.indexOf('?>', lt + 2);
      if (end < 0) throw new RowFragmentError('Unterminated processing instruction.');
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
    if (i === lt + 1) throw new RowFragmentError('A tag without a name.');
    const qname = xml.slice(lt + 1, i);
    if (cell !== undefined && (qname === 'c' || qname.endsWith(':c'))) {
      const end = shortcutCell(xml, i, qname, cell);
      if (end > 0) {
        pos = end;
        continue;
      }
    }
    if (rowStart !== undefined && (qname === 'row' || qname.endsWith(':row'))) {
      const end = shortcutRowStart(xml, i, rowStart);
      if (end > 0) {
        stack.push(qname);
        pos = end;
        continue;
      }
    }
    let attrs = NO_ATTRS;
    let selfClosing = false;
    for (;;) {
      while (i < n && isSpace(xml.charCodeAt(i))) i++;
      if (i >= n) throw new RowFragmentError(`Unterminated tag <${qname}>.`);
      const code = xml.charCodeAt(i);
      if (code === 62 /* > */) {
        i++;
        break;
      }
      if (code === 47 /* / */) {
        if (xml.charCodeAt(i + 1) !== 62) throw new RowFragmentError(`Broken tag <${qname}>.`);
        selfClosing = true;
        i += 2;
        break;
      }
      const eq = xml.indexOf('=', i);
      if (eq < 0) throw new RowFragmentError(`Attribute without a value in <${qname}>.`);
      const name = attributeName(xml, i, eq);
      let q = eq + 1;
      while (q < n && isSpace(xml.charCodeAt(q))) q++;
      const quote = xml[q];
      if (quote !== '"' && quote !== "'") throw new RowFragmentError(`Unquoted attribute in <${qname}>.`);
      const close = xml.indexOf(quote, q + 1);
      if (close < 0) throw new RowFragmentError(`Unterminated attribute in <${qname}>.`);
      if (attrs === NO_ATTRS) attrs = {};
      const raw = xml.slice(q + 1, close);
      attrs[name] = raw.indexOf('&') < 0 ? raw : decodeXmlEntities(raw);
      i = close + 1;
    }
    const local = localOf(qname);
    open(local, attrs);
    if (selfClosing) close(local);
    else {
      stack.push(qname);
    }
    pos = i;
  }
  if (stack.length > 0) throw new RowFragmentError(`Unclosed element <${stack[stack.length - 1]}>.`);
}

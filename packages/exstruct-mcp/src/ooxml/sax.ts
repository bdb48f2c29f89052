// The SAX layer without dependencies beyond saxes, so worker threads load it quickly.
import { SaxesParser } from 'saxes';

/**
 * SAX handlers. Element names arrive without their namespace prefix (`x:c` → `c`): OOXML producers
 * pick prefixes freely, the local names are what the schema fixes. Attribute names keep their prefix
 * (use `attr()` to look one up by local name).
 */
export interface SaxHandlers {
  open?: (name: string, attrs: Record<string, string>) => void;
  close?: (name: string) => void;
  text?: (text: string) => void;
  /**
   * Optional shortcut for the start tag of a `<row>` that has content: equivalent to its open event,
   * reported as scalars (`row` -1 when `r` is absent; `height` from `ht`; `hidden` from `hidden`; other
   * attributes ignored). The element's content and end tag are reported as usual.
   */
  rowStart?: (row: number, height: number | undefined, hidden: boolean) => void;
  /**
   * Optional shortcut for the commonest element of big sheets, a `<c>` with double-quoted attributes
   * (only `r`, `s` and `t` are read) that is empty or holds exactly `<v>value</v>` or
   * `<f>formula</f><v>value</v>`: equivalent to the open/text/close events of that element, reported
   * as scalars. `col` is the 0-based column of `r` (-1 when `r` is absent or has no column letters),
   * `style` the `s` index (0 when absent). Parsers that do not know it emit the events instead.
   */
  cell?: (
    col: number,
    type: string | undefined,
    style: number,
    value: string | undefined,
    formula: string | undefined,
  ) => void;
}

/** A well-formedness error of one part (turned into CORRUPT_WORKBOOK by the callers). */
export class XmlSyntaxError extends Error {
  constructor(
    readonly part: string,
    message: string,
  ) {
    super(message);
    this.name = 'XmlSyntaxError';
  }
}

/** `a:t` → `t`. */
export function localName(qualified: string): string {
  const colon = qualified.indexOf(':');
  return colon < 0 ? qualified : qualified.slice(colon + 1);
}

/** An attribute by local name, whatever its prefix (`r:id`, `ns1:id`, `id`). */
export function attr(attrs: Record<string, string>, local: string): string | undefined {
  const direct = attrs[local];
  if (direct !== undefined) return direct;
  for (const key in attrs) {
    if (key.endsWith(`:${local}`) && !key.startsWith('xmlns')) return attrs[key];
  }
  return undefined;
}

/**
 * A saxes parser over the handlers. Namespace processing and position tracking are off: both cost time on
 * million-cell sheets. With `fragment` it accepts a sequence of elements without one root (a batch of
 * `<row>` elements cut from sheetData).
 */
export function createSaxParser(part: string, handlers: SaxHandlers, fragment = false): SaxesParser {
  const parser = new SaxesParser({ xmlns: false, position: false, fragment });
  const { open, close, text } = handlers;
  if (open) parser.on('opentag', (tag) => open(localName(tag.name), tag.attributes));
  if (close) parser.on('closetag', (tag) => close(localName(tag.name)));
  if (text) {
    parser.on('text', text);
    parser.on('cdata', text);
  }
  parser.on('error', (error) => {
    throw new XmlSyntaxError(part, error.message);
  });
  return parser;
}

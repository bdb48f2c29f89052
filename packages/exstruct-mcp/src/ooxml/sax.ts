// The event layer over the package's one XML tokenizer (xml-tokenizer.ts), free of other dependencies so
// worker threads load it quickly.
import { XmlError, XmlTokenizer, type StartTag } from './xml-tokenizer.js';

/** What a handler learns about an element besides its local name. */
export type ElementInfo = Pick<StartTag, 'ns' | 'attrs'>;

/**
 * SAX handlers. Element names arrive as local names (`x:c` → `c`), with the resolved namespace URI in
 * `tag.ns` for those that must tell vocabularies apart (`workbookPr` of SpreadsheetML from an extension's
 * `x15:workbookPr`). `attrs` is keyed by the attribute names as written; `attr()` looks one up by local
 * name, `tag.attrs` has their namespaces.
 */
export interface SaxHandlers {
  open?: (name: string, attrs: Record<string, string>, tag: ElementInfo) => void;
  close?: (name: string, ns: string) => void;
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
    readonly limit = false,
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

export interface SaxParser {
  write(text: string): void;
  close(): void;
}

/**
 * A parser over the handlers. With `fragment` it accepts a sequence of elements without one root (a
 * batch of `<row>` elements cut from sheetData).
 */
export function createSaxParser(part: string, handlers: SaxHandlers, fragment = false): SaxParser {
  const { open, close, text } = handlers;
  const tokenizer = new XmlTokenizer(
    {
      open: open
        ? (tag) => {
            const attrs: Record<string, string> = {};
            for (const a of tag.attrs) attrs[a.qname] = a.value;
            open(tag.local, attrs, tag);
          }
        : undefined,
      close: close ? (tag) => close(tag.local, tag.ns) : undefined,
      text: text ? (value) => text(value) : undefined,
    },
    { fragment },
  );
  const guard = (run: () => void) => {
    try {
      run();
    } catch (error) {
      if (error instanceof XmlError) throw new XmlSyntaxError(part, error.message, error.limit);
      throw error;
    }
  };
  return {
    write: (value) => guard(() => tokenizer.write(value)),
    close: () => guard(() => tokenizer.end()),
  };
}

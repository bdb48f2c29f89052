import type { Readable } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import { attr, createSaxParser, XmlSyntaxError, type SaxHandlers, type SaxParser } from './sax.js';
import { ToolError } from '@mcp-workbench/core/engine';

export { attr, localName, type SaxHandlers } from './sax.js';

/** CORRUPT_WORKBOOK for a part that is not well-formed XML (`error`: the parser's error or its reason). */
export function corrupt(part: string, error: unknown): ToolError {
  const reason = error instanceof Error ? error.message : String(error);
  if (error instanceof XmlSyntaxError) part = error.part;
  // Over one of the tokenizer's caps (nesting depth, …): refused, not broken.
  if ((error as { limit?: unknown } | undefined)?.limit === true) {
    return new ToolError('CORRUPT_WORKBOOK', `The workbook part "${part}" was not read: ${reason}`, {
      hint: 'The file looks crafted or damaged; open and re-save it in Excel, or check where it came from.',
      details: { part },
    });
  }
  return new ToolError('CORRUPT_WORKBOOK', `The workbook part "${part}" is not well-formed XML: ${reason}`, {
    hint: 'Open and re-save the file in Excel, or check that the download was complete.',
    details: { part },
  });
}

function createParser(part: string, handlers: SaxHandlers, fragment = false): SaxParser {
  return createSaxParser(part, handlers, fragment);
}

/** Streams one XML part through SAX handlers; the part is never held in memory as a whole. */
export async function parseXmlStream(stream: Readable, part: string, handlers: SaxHandlers): Promise<void> {
  const parser = createParser(part, handlers);
  const decoder = new StringDecoder('utf8');
  try {
    for await (const chunk of stream) {
      // StringDecoder keeps a multi-byte character split across chunks for the next write.
      parser.write(decoder.write(chunk as Buffer));
    }
    parser.write(decoder.end());
    parser.close();
  } catch (error) {
    stream.destroy();
    if (error instanceof ToolError) throw error;
    throw corrupt(part, error);
  }
}

/** A push parser: feed text as it arrives (used for fragments such as runs of `<row>` elements). */
export interface XmlPushParser {
  write(text: string): void;
  close(): void;
}

/**
 * A push parser over SAX handlers. With `fragment: true` it accepts a sequence of elements without a
 * single root, e.g. a batch of `<row>` elements cut from a worksheet's sheetData.
 */
export function createPushParser(part: string, handlers: SaxHandlers, fragment = false): XmlPushParser {
  const parser = createParser(part, handlers, fragment);
  const guard = (run: () => void) => {
    try {
      run();
    } catch (error) {
      if (error instanceof ToolError) throw error;
      throw corrupt(part, error);
    }
  };
  return {
    write: (text) => guard(() => parser.write(text)),
    close: () => guard(() => parser.close()),
  };
}

/** Parses a small, already-read XML part through SAX handlers. */
export function parseXmlText(xml: string, part: string, handlers: SaxHandlers): void {
  const parser = createParser(part, handlers);
  try {
    parser.write(xml);
    parser.close();
  } catch (error) {
    if (error instanceof ToolError) throw error;
    throw corrupt(part, error);
  }
}

/** A node of a small part's element tree (drawings, charts, rels, workbook.xml — never a sheet). */
export interface XmlElement {
  /** Local name. */
  name: string;
  /** Namespace URI. */
  ns: string;
  attrs: Record<string, string>;
  children: XmlElement[];
  /** Text directly inside this element (concatenated). */
  text: string;
}

/** Builds an element tree of a small part. Worksheets are streamed instead (see worksheet-reader). */
export function parseXmlTree(xml: string, part: string): XmlElement {
  const root: XmlElement = { name: '#document', ns: '', attrs: {}, children: [], text: '' };
  const stack: XmlElement[] = [root];
  parseXmlText(xml, part, {
    open(name, attrs, tag) {
      const element: XmlElement = { name, ns: tag.ns, attrs, children: [], text: '' };
      stack[stack.length - 1]!.children.push(element);
      stack.push(element);
    },
    close() {
      stack.pop();
    },
    text(text) {
      stack[stack.length - 1]!.text += text;
    },
  });
  const top = root.children[0];
  if (!top) throw corrupt(part, new Error('no root element'));
  return top;
}

/** The first child with this local name. */
export function child(element: XmlElement | undefined, name: string): XmlElement | undefined {
  return element?.children.find((c) => c.name === name);
}

/** Every child with this local name. */
export function children(element: XmlElement | undefined, name: string): XmlElement[] {
  return element ? element.children.filter((c) => c.name === name) : [];
}

/** Follows a path of local names (`path(sp, 'spPr', 'xfrm', 'off')`). */
export function path(element: XmlElement | undefined, ...names: string[]): XmlElement | undefined {
  let current = element;
  for (const name of names) current = child(current, name);
  return current;
}

/** Every descendant with this local name, in document order. */
export function descendants(element: XmlElement | undefined, name: string): XmlElement[] {
  const found: XmlElement[] = [];
  const visit = (node: XmlElement) => {
    for (const c of node.children) {
      if (c.name === name) found.push(c);
      visit(c);
    }
  };
  if (element) visit(element);
  return found;
}

export function intAttr(element: XmlElement | undefined, name: string): number | undefined {
  const raw = element ? attr(element.attrs, name) : undefined;
  if (raw === undefined || raw === '') return undefined;
  const value = Number(raw);
  return Number.isFinite(value) ? value : undefined;
}

import { describe, expect, it } from 'vitest';
import {
  qualify,
  tokenizeXml,
  XmlTokenizer,
  type EndTag,
  type StartTag,
  type TokenizerOptions,
} from '../src/ooxml/xml-tokenizer.js';

const MAIN = 'http://schemas.openxmlformats.org/spreadsheetml/2006/main';
const REL = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';

interface Seen {
  opens: StartTag[];
  closes: EndTag[];
  texts: string[];
}

function read(xml: string, pieces = 1, options: TokenizerOptions = {}): Seen {
  const seen: Seen = { opens: [], closes: [], texts: [] };
  const tokenizer = new XmlTokenizer(
    {
      open: (tag) => seen.opens.push(tag),
      close: (tag) => seen.closes.push(tag),
      text: (text) => seen.texts.push(text),
    },
    options,
  );
  const size = Math.ceil(xml.length / pieces);
  for (let i = 0; i < xml.length; i += size) tokenizer.write(xml.slice(i, i + size));
  tokenizer.end();
  return seen;
}

describe('XML tokenizer', () => {
  it('resolves prefixes from declarations wherever they are made', () => {
    // The relationships prefix declared on each child (as openpyxl writes workbooks), a different prefix
    // per child, and the main namespace behind a prefix (as the OpenXML SDK writes them).
    const xml =
      `<x:workbook xmlns:x="${MAIN}"><x:sheets>` +
      `<x:sheet name="A" sheetId="1" xmlns:r="${REL}" r:id="rId1"/>` +
      `<x:sheet name="B" sheetId="2" xmlns:ns="${REL}" ns:id="rId2"></x:sheet>` +
      `</x:sheets></x:workbook>`;
    const { opens } = read(xml);
    const sheets = opens.filter((t) => t.local === 'sheet');
    expect(sheets.map((t) => t.ns)).toEqual([MAIN, MAIN]);
    expect(sheets.map((t) => t.attrs.find((a) => a.ns === REL && a.local === 'id')?.value)).toEqual([
      'rId1',
      'rId2',
    ]);
    // The second sheet has an end tag: its offsets cover just the start tag.
    expect(xml.slice(sheets[1]!.start, sheets[1]!.end)).toMatch(/^<x:sheet name="B".*ns:id="rId2">$/);
  });

  it('reads attributes in either quote, CDATA literally, entities, and XML line ends', () => {
    const xml = `<a k='v "q"' j="&amp;&#x41;&#66;&lt;" n="x\r\ny\tz"><![CDATA[<b> & \r\n]]>t\r\nu&#13;</a>`;
    for (const pieces of [1, 5, xml.length]) {
      const { opens, texts } = read(xml, pieces);
      expect(Object.fromEntries(opens[0]!.attrs.map((a) => [a.qname, a.value]))).toEqual({
        k: 'v "q"',
        j: '&AB<',
        n: 'x y z', // attribute whitespace becomes spaces
      });
      expect(texts.join('')).toBe('<b> & \nt\nu\r');
    }
  });

  it('gives offsets that slice the input exactly, across chunks and after a byte-order mark', () => {
    const xml = '\uFEFF<?xml version="1.0"?>\n<r><!-- c --><e a="1">text</e><f/></r>';
    const { opens, closes } = read(xml, 7);
    expect(opens.map((t) => xml.slice(t.start, t.end))).toEqual(['<r>', '<e a="1">', '<f/>']);
    expect(closes.map((t) => xml.slice(t.start, t.end))).toEqual(['</e>', '', '</r>']);
  });

  it.each([
    ['an undeclared element prefix', '<x:a/>', /prefix "x"/],
    ['an undeclared attribute prefix', '<a r:id="1"/>', /prefix "r"/],
    ['a duplicate attribute', '<a b="1" b="2"/>', /twice/],
    ['a mismatched end tag', '<a></b>', /does not match/],
    ['an unclosed element', '<a><b></b>', /never closed/],
    ['text outside the root', '<a/>x', /outside the root/],
    ['two roots', '<a/><b/>', /More than one root/],
    ['an unknown entity', '<a>&bogus;</a>', /Undefined entity/],
    ['a bare ampersand', '<a>AT&T</a>', /starts no entity/],
    ['a DTD (entity bombs come that way)', '<!DOCTYPE a [<!ENTITY x "y">]><a>&x;</a>', /DTD/],
    ['"<" in an attribute', '<a b="<"/>', /inside an attribute/],
    ['an unquoted attribute', '<a b=1/>', /unquoted/],
  ])('refuses %s', (_label, xml, reason) => {
    expect(() => tokenizeXml(xml, {})).toThrow(reason);
  });

  it('caps nesting with a clear error, before the stack grows', () => {
    const deep = `${'<a>'.repeat(100_000)}`;
    expect(() => tokenizeXml(deep, {})).toThrow(/nested more than 512 levels deep/);
    expect(() => tokenizeXml(`${'<a>'.repeat(40)}${'</a>'.repeat(40)}`, {}, { maxDepth: 32 })).toThrow(
      /32 levels/,
    );
  });

  it('reads a piece of a part (a worksheet tail) in the scope it is given', () => {
    const scope = new Map([
      ['x', MAIN],
      ['r', REL],
    ]);
    const { opens, closes } = read('</x:sheetData><x:drawing r:id="rId3"/></x:worksheet>', 1, {
      partial: true,
      scope,
    });
    expect(closes[0]).toMatchObject({ local: 'sheetData', ns: MAIN, depth: 0 });
    expect(opens[0]!.attrs[0]).toMatchObject({ local: 'id', ns: REL, value: 'rId3' });
  });

  it('is linear in a token that spans many chunks', () => {
    const value = 'v'.repeat(4_000_000);
    const xml = `<a b="${value}">${'t'.repeat(4_000_000)}<![CDATA[${'c'.repeat(4_000_000)}]]></a>`;
    const started = performance.now();
    const { opens, texts } = read(xml, 20_000); // 600-character pieces
    expect(opens[0]!.attrs[0]!.value.length).toBe(value.length);
    expect(texts.join('').length).toBe(8_000_000);
    // Quadratic rescanning would take minutes here; linear work takes well under a second.
    expect(performance.now() - started).toBeLessThan(10_000);
  });

  it('writes a name of a namespace with the prefix in force, or declares one', () => {
    const scope = new Map([
      ['', MAIN],
      ['r', 'urn:other'],
    ]);
    expect(qualify(scope, MAIN, 'sheet', 'x')).toEqual({ qname: 'sheet', declaration: '' });
    expect(qualify(scope, REL, 'id', 'r', true)).toEqual({
      qname: 'r1:id',
      declaration: ` xmlns:r1="${REL}"`,
    });
    expect(qualify(new Map([['rel', REL]]), REL, 'id', 'r', true)).toEqual({
      qname: 'rel:id',
      declaration: '',
    });
  });
});

import { performance } from 'node:perf_hooks';
import { describe, expect, it } from 'vitest';
import { createSaxParser, type SaxHandlers } from '../src/ooxml/sax.js';
import { decodeXmlEntities } from '../src/ooxml/ooxml-text.js';
import { parseRowFragment, RowTokenizer } from '../src/ooxml/row-fragment-parser.js';
import { emptyWorksheetInfo, worksheetHandlers } from '../src/ooxml/worksheet-handlers.js';
import { MAIN_NS } from '../src/ooxml/namespaces.js';
import { ROOT_SCOPE } from '../src/ooxml/xml-tokenizer.js';

const X14AC = 'http://schemas.microsoft.com/office/spreadsheetml/2009/9/ac';
/** The declarations a worksheet's root makes, in force where its rows start. */
const SCOPE = new Map([...ROOT_SCOPE, ['', MAIN_NS], ['x', MAIN_NS], ['x14ac', X14AC]]);
const DECLARATIONS = `xmlns="${MAIN_NS}" xmlns:x="${MAIN_NS}" xmlns:x14ac="${X14AC}"`;

type Event = [string, ...unknown[]];

function recorder(events: Event[]): SaxHandlers {
  return {
    open: (name, attrs) => events.push(['open', name, { ...attrs }]),
    close: (name) => events.push(['close', name]),
    text: (text) => events.push(['text', text]),
  };
}

/**
 * Merges adjacent text events (parsers may split text differently) and drops whitespace-only text
 * (saxes also reports the line breaks between rows, outside any element; nothing reads those).
 */
function normalise(events: Event[]): Event[] {
  const out: Event[] = [];
  for (const event of events) {
    const last = out[out.length - 1];
    if (event[0] === 'text' && last?.[0] === 'text') last[1] = `${String(last[1])}${String(event[1])}`;
    else out.push([...event]);
  }
  return out.filter((event) => !(event[0] === 'text' && String(event[1]).trim() === ''));
}

/** The general XML tokenizer, on the rows wrapped in a root that makes the worksheet's declarations. */
function viaTokenizer(xml: string): Event[] {
  const events: Event[] = [];
  const parser = createSaxParser('sheet.xml', recorder(events));
  parser.write(`<sheetData ${DECLARATIONS}>${xml}</sheetData>`);
  parser.close();
  return normalise(events).slice(1, -1);
}

function viaFragmentParser(xml: string, pieces = 1): Event[] {
  const events: Event[] = [];
  const tokenizer = new RowTokenizer(recorder(events), SCOPE);
  // Cut anywhere: the tokenizer keeps what is incomplete for the next piece.
  const size = Math.ceil(xml.length / pieces);
  for (let i = 0; i < xml.length; i += size) tokenizer.write(xml.slice(i, i + size));
  tokenizer.end();
  return normalise(events);
}

/** What the worksheet handlers report, with or without the `<row>` and `<c>` shortcuts. */
function scan(xml: string, shortcut: boolean, formulas = true) {
  const cells: unknown[][] = [];
  const info = emptyWorksheetInfo();
  const handlers = worksheetHandlers((...cell) => cells.push(cell), info, { formulas });
  if (!shortcut) {
    delete handlers.cell;
    delete handlers.rowStart;
  }
  parseRowFragment(xml, handlers, SCOPE);
  return { cells, heights: [...info.rowHeights], rowsWithoutRef: info.rowsWithoutRef };
}

const cells = (xml: string, shortcut: boolean, formulas = true) => scan(xml, shortcut, formulas).cells;

const ROWS = [
  '<row r="1" spans="1:3"><c r="A1" t="s"><v>0</v></c><c r="B1" s="2"><v>45293</v></c><c r="C1"><f>A1*2</f><v>4</v></c></row>',
  '<row r="2"><c r="A2" t="inlineStr"><is><t xml:space="preserve"> a &amp; b </t></is></c><c r="B2" t="str"><f>"x"&amp;"y"</f><v>xy</v></c></row>',
  '<row r="3"><c r="A3" t="inlineStr"><is><r><t>rich</t></r><r><rPr><b/></rPr><t> text</t></r><rPh><t>ruby</t></rPh></is></c></row>',
  '<row r="4"><c r="A4"><f t="shared" ref="A4:A6" si="0">B4+1</f><v>1</v></c><c r="B4" t="e"><v>#REF!</v></c></row>',
  '<row r="5"><c r="A5"><f t="shared" si="0"/><v>2</v></c><c r="B5" t="b"><v>1</v></c><c r="C5"/></row>',
  '<row r="7" spans="1:28" ht="24.5" customHeight="1" x14ac:dyDescent="0.25"><c s="3" r="C7" t="n" cm="1"><v>7</v></c><c r=\'D7\' s=\'1\'><v>8</v></c><c r="E7" s="x"><v>9</v></c><c r = "F7"><v>10</v></c><c t="str"><f>"a"&amp;"b"</f><v>a&amp;b</v></c><c r="7" s="12"/><c r="AB7" t="e"><v>#N/A</v></c></row>',
  '<row r="8" hidden="1" ht="20"><c r="A8"><v>1</v></c></row><row><c><v>2</v></c></row>',
  "<row r='6' ht='30' customHeight='1'><c r='A6' t='str'><v><![CDATA[<raw> & text]]></v></c><!-- note --><c r='B6'><v>&#x41;&#66;</v></c></row>",
].join('\n');

const PREFIXED = ROWS.replace(/<(\/?)(row|c|v|f|is|t|r|rPh|rPr|b)([\s>/])/g, '<$1x:$2$3');

describe('row-fragment parser', () => {
  it('reports the same events as the general tokenizer, for plain and prefixed element names', () => {
    expect(viaFragmentParser(ROWS)).toEqual(viaTokenizer(ROWS));
    expect(viaFragmentParser(PREFIXED)).toEqual(viaTokenizer(PREFIXED));
    expect(viaFragmentParser(PREFIXED).filter((e) => e[0] === 'open')[0]).toEqual([
      'open',
      'row',
      { r: '1', spans: '1:3' },
    ]);
  });

  it('gives the same cells with the value-cell shortcut as without it', () => {
    for (const xml of [ROWS, PREFIXED]) {
      const fast = cells(xml, true);
      expect(fast).toEqual(cells(xml, false));
      expect(fast.length).toBeGreaterThanOrEqual(11);
    }
    expect(cells(ROWS, true)).toContainEqual([4, 0, undefined, 0, '1', 'B4+1']);
    expect(cells(ROWS, true)).toContainEqual([5, 0, undefined, 0, '2', 'B5+1']);
    expect(cells(ROWS, true)).toContainEqual([1, 2, undefined, 0, '4', 'A1*2']);
    // Attributes in any order, extra ones ignored, a cell without r takes the next column.
    expect(scan(ROWS, true)).toEqual({ ...scan(ROWS, false), cells: expect.anything() });
    expect(scan(ROWS, true).heights).toEqual([
      [7, 24.5],
      [8, 0],
      [6, 30],
    ]);
    expect(scan(ROWS, true).rowsWithoutRef).toBe(1);
    expect(cells(ROWS, true)).toContainEqual([9, 0, undefined, 0, '2', undefined]);
    expect(cells(ROWS, true)).toContainEqual([7, 2, 'n', 3, '7', undefined]);
    expect(cells(ROWS, true)).toContainEqual([7, 6, 'str', 0, 'a&b', '"a"&"b"']);
    expect(cells(ROWS, true)).toContainEqual([7, 7, undefined, 12, undefined, undefined]);
    expect(cells(ROWS, true)).toContainEqual([7, 27, 'e', 0, '#N/A', undefined]);
  });

  it.each([
    ['an unclosed element', '<row r="1"><c r="A1"><v>1</v></c>'],
    ['a mismatched closing tag', '<row r="1"><c r="A1"><v>1</c></v></row>'],
    ['a closing tag without an opening one', '</row>'],
    ['an unterminated tag', '<row r="1"><c r="A1"'],
    ['an unquoted attribute', '<row r=1></row>'],
    ['an attribute without a value', '<row hidden></row>'],
    ['text outside any element', 'stray<row r="1"></row>'],
    ['an unterminated CDATA section', '<row r="1"><c><v><![CDATA[x</v></c></row>'],
    ['an unterminated comment', '<row r="1"><!-- x </row>'],
  ])('rejects %s', (_label, xml) => {
    expect(() => parseRowFragment(xml, {})).toThrow();
  });

  it('gives the same events however the rows are cut into pieces', () => {
    const whole = viaFragmentParser(PREFIXED);
    for (const pieces of [2, 7, 31, 200, PREFIXED.length])
      expect(viaFragmentParser(PREFIXED, pieces)).toEqual(whole);
  });

  it('gives the same events when long tags, CDATA sections, comments and instructions span many pieces', () => {
    const long = 'x'.repeat(5000);
    const xml =
      `<row r="1"><c r="A1" t="str" x14ac:note="a > b ]]> --> ${long}"><v><![CDATA[${long} > ]] ]>]]></v></c>` +
      `<!-- ${long} - > --><?pi ${long} ? > ?><c r="B1"><f>${long}</f><v>1</v></c></row>` +
      `<row r="2" ht="${'1'.repeat(40)}"><c r="A2"><v>2</v></c></row>`;
    const whole = viaFragmentParser(xml);
    expect(whole.filter((e) => e[0] === 'open').map((e) => e[1])).toEqual([
      'row',
      'c',
      'v',
      'c',
      'f',
      'v',
      'row',
      'c',
      'v',
    ]);
    for (const pieces of [3, 17, 400, 2000]) expect(viaFragmentParser(xml, pieces)).toEqual(whole);
  });

  it('is linear in a token that spans many pieces (no rejoining or rescanning of the token so far)', () => {
    const value = 'v'.repeat(4_000_000);
    const xml = `<row r="1"><c r="A1" t="str" x14ac:a="${value}"><v><![CDATA[${value}]]></v></c></row>`;
    const started = performance.now();
    const events = viaFragmentParser(xml, 20_000); // 400-character pieces
    expect(events.find((e) => e[0] === 'text')![1]).toHaveLength(value.length);
    // Measured at about 0.3 s; rejoining the token on every piece takes minutes.
    expect(performance.now() - started).toBeLessThan(10_000);
  });

  it('normalises line ends as XML does (CR LF and lone CR become LF; a character reference stays)', () => {
    const xml =
      '<row r="1"><c r="A1" t="inlineStr"><is><t>a\r\nb\rc&#13;d</t></is></c><c r="B1" t="str"><v>x\r\ny</v></c></row>';
    for (const pieces of [1, 3, xml.length]) {
      const events: Event[] = [];
      const tokenizer = new RowTokenizer(recorder(events), SCOPE);
      const size = Math.ceil(xml.length / pieces);
      for (let i = 0; i < xml.length; i += size) tokenizer.write(xml.slice(i, i + size));
      tokenizer.end();
      const texts = events.filter((e) => e[0] === 'text').map((e) => String(e[1]));
      expect(texts.join('|').replace(/\|/g, '')).toBe('a\nb\nc\rdx\ny');
    }
  });

  it('takes no cell value from elements of another vocabulary', () => {
    const xml =
      '<row r="1" xmlns:ext="urn:ext"><c r="A1" t="str"><v>kept</v><ext:v>not a value</ext:v></c>' +
      '<ext:c r="B1"><v>9</v></ext:c></row>';
    expect(cells(xml, true)).toEqual([[1, 0, 'str', 0, 'kept', undefined]]);
    expect(cells(xml, false)).toEqual([[1, 0, 'str', 0, 'kept', undefined]]);
  });

  it('refuses undeclared prefixes and nesting deeper than the cap, with a clear reason', () => {
    expect(() => parseRowFragment('<y:row r="1"></y:row>', {}, SCOPE)).toThrow(/prefix "y".*not declared/);
    const deep = `<row r="1">${'<a>'.repeat(600)}${'</a>'.repeat(600)}</row>`;
    expect(() => parseRowFragment(deep, {}, SCOPE)).toThrow(/nested more than 512 levels/);
  });

  it('decodes the predefined entities and character references', () => {
    expect(decodeXmlEntities('a &lt;b&gt; &amp; &quot;c&quot; &apos;d&apos; &#x6771;&#20140;')).toBe(
      'a <b> & "c" \'d\' 東京',
    );
    expect(decodeXmlEntities('no entities')).toBe('no entities');
  });
});

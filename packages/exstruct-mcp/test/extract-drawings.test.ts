// Shapes, connectors, groups, pictures, charts and comments from a hand-made drawing part, plus the
// geometry helpers behind positions and connector directions.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { extractWorkbook } from '../src/extract/extract-workbook.js';
import type { Arrow, SheetData } from '../src/extract/model.js';
import { lineDirection, shapeTypeName } from '../src/extract/shapes.js';
import { row, tempDir, type TempDir } from './extract-helpers.js';

const EMU = 12700; // per point
const A = 'xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main"';
const C = 'xmlns:c="http://schemas.openxmlformats.org/drawingml/2006/chart"';
const R = 'xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"';

function xfrm(l: number, t: number, w: number, h: number, extra = ''): string {
  return `<a:xfrm${extra}><a:off x="${l * EMU}" y="${t * EMU}"/><a:ext cx="${w * EMU}" cy="${h * EMU}"/></a:xfrm>`;
}

function anchor(content: string, from = { col: 0, row: 0 }, to = { col: 2, row: 2 }): string {
  const marker = (tag: string, m: { col: number; row: number }) =>
    `<xdr:${tag}><xdr:col>${m.col}</xdr:col><xdr:colOff>0</xdr:colOff><xdr:row>${m.row}</xdr:row><xdr:rowOff>0</xdr:rowOff></xdr:${tag}>`;
  return `<xdr:twoCellAnchor>${marker('from', from)}${marker('to', to)}${content}<xdr:clientData/></xdr:twoCellAnchor>`;
}

function sp(
  id: number,
  name: string,
  body: { text?: string[]; prst?: string; xf: string; txBox?: boolean; hidden?: boolean },
): string {
  const text = body.text
    ? `<xdr:txBody><a:bodyPr/>${body.text.map((p) => `<a:p><a:r><a:t>${p}</a:t></a:r></a:p>`).join('')}</xdr:txBody>`
    : '';
  return (
    `<xdr:sp><xdr:nvSpPr><xdr:cNvPr id="${id}" name="${name}"${body.hidden ? ' hidden="1"' : ''}/><xdr:cNvSpPr${body.txBox ? ' txBox="1"' : ''}/></xdr:nvSpPr>` +
    `<xdr:spPr>${body.xf}<a:prstGeom prst="${body.prst ?? 'rect'}"><a:avLst/></a:prstGeom></xdr:spPr>${text}</xdr:sp>`
  );
}

const DRAWING =
  `<?xml version="1.0" encoding="UTF-8"?><xdr:wsDr xmlns:xdr="http://schemas.openxmlformats.org/drawingml/2006/spreadsheetDrawing" ${A} ${R}>` +
  anchor(sp(2, 'Start', { text: ['Start', 'here'], prst: 'flowChartProcess', xf: xfrm(100, 50, 80, 30) })) +
  anchor(sp(3, 'Note', { text: ['note'], txBox: true, xf: xfrm(300, 200, 60, 20) })) +
  anchor(sp(4, 'Blank', { prst: 'ellipse', xf: xfrm(100, 200, 40, 40) })) +
  anchor(sp(5, 'Decor', { prst: 'star5', xf: xfrm(500, 500, 10, 10) })) +
  anchor(sp(6, 'Hidden', { text: ['secret'], xf: xfrm(0, 0, 10, 10), hidden: true })) +
  // A connector glued from "Blank" (id 4) to "Start" (id 2), drawn flipped: it runs up and to the right.
  anchor(
    '<xdr:cxnSp><xdr:nvCxnSpPr><xdr:cNvPr id="7" name="Arrow"/><xdr:cNvCxnSpPr><a:stCxn id="4" idx="0"/><a:endCxn id="2" idx="2"/></xdr:cNvCxnSpPr></xdr:nvCxnSpPr>' +
      `<xdr:spPr>${xfrm(120, 80, 0, 120, ' flipV="1"')}<a:prstGeom prst="straightConnector1"><a:avLst/></a:prstGeom>` +
      '<a:ln><a:headEnd type="oval"/><a:tailEnd type="stealth"/></a:ln></xdr:spPr></xdr:cxnSp>',
  ) +
  // A group scaled by 2: its children are laid out in a 0..100 space mapped onto 400..600 pt.
  anchor(
    '<xdr:grpSp><xdr:nvGrpSpPr><xdr:cNvPr id="8" name="Group"/><xdr:cNvGrpSpPr/></xdr:nvGrpSpPr>' +
      `<xdr:grpSpPr><a:xfrm><a:off x="${400 * EMU}" y="${100 * EMU}"/><a:ext cx="${200 * EMU}" cy="${100 * EMU}"/>` +
      `<a:chOff x="0" y="0"/><a:chExt cx="${100 * EMU}" cy="${50 * EMU}"/></a:xfrm></xdr:grpSpPr>` +
      sp(9, 'Child A', { text: ['left'], xf: xfrm(0, 0, 20, 10) }) +
      sp(10, 'Child B', { text: ['right'], xf: xfrm(50, 25, 20, 10) }) +
      '</xdr:grpSp>',
  ) +
  anchor(
    `<xdr:pic><xdr:nvPicPr><xdr:cNvPr id="11" name="Logo" descr="Company logo"/><xdr:cNvPicPr/></xdr:nvPicPr><xdr:blipFill/><xdr:spPr>${xfrm(10, 400, 50, 50)}</xdr:spPr></xdr:pic>`,
  ) +
  anchor(
    `<xdr:pic><xdr:nvPicPr><xdr:cNvPr id="12" name="Photo"/><xdr:cNvPicPr/></xdr:nvPicPr><xdr:blipFill/><xdr:spPr>${xfrm(70, 400, 50, 50)}</xdr:spPr></xdr:pic>`,
  ) +
  // A chart with no transform of its own: placed from its anchor (columns 64 px = 48 pt, rows 15 pt).
  anchor(
    '<xdr:graphicFrame macro=""><xdr:nvGraphicFramePr><xdr:cNvPr id="13" name="Sales chart"/><xdr:cNvGraphicFramePr/></xdr:nvGraphicFramePr>' +
      '<xdr:xfrm><a:off x="0" y="0"/><a:ext cx="0" cy="0"/></xdr:xfrm><a:graphic><a:graphicData uri="http://schemas.openxmlformats.org/drawingml/2006/chart">' +
      `<c:chart ${C} r:id="rChart"/></a:graphicData></a:graphic></xdr:graphicFrame>`,
    { col: 2, row: 4 },
    { col: 6, row: 14 },
  ) +
  '</xdr:wsDr>';

const CHART =
  `<?xml version="1.0" encoding="UTF-8"?><c:chartSpace ${C} ${A}><c:chart>` +
  '<c:title><c:tx><c:rich><a:p><a:r><a:t>Sales</a:t></a:r><a:r><a:t> by region</a:t></a:r></a:p></c:rich></c:tx></c:title>' +
  '<c:plotArea><c:barChart><c:barDir val="bar"/>' +
  '<c:ser><c:idx val="0"/><c:tx><c:strRef><c:f>Data!$B$1</c:f><c:strCache><c:pt idx="0"><c:v>North</c:v></c:pt></c:strCache></c:strRef></c:tx>' +
  '<c:cat><c:strRef><c:f>Data!$A$2:$A$5</c:f></c:strRef></c:cat><c:val><c:numRef><c:f>Data!$B$2:$B$5</c:f></c:numRef></c:val></c:ser>' +
  '<c:ser><c:idx val="1"/><c:tx><c:v>Literal</c:v></c:tx><c:val><c:numRef><c:f>Data!$C$2:$C$5</c:f></c:numRef></c:val></c:ser>' +
  '</c:barChart>' +
  '<c:catAx><c:axPos val="l"/><c:title><c:tx><c:rich><a:p><a:r><a:t>Region</a:t></a:r></a:p></c:rich></c:tx></c:title></c:catAx>' +
  '<c:valAx><c:scaling><c:max val="1000"/><c:min val="0"/></c:scaling><c:axPos val="b"/><c:title><c:tx><c:rich><a:p><a:r><a:t>Units</a:t></a:r></a:p></c:rich></c:tx></c:title></c:valAx>' +
  '</c:plotArea></c:chart></c:chartSpace>';

const COMMENTS =
  '<?xml version="1.0" encoding="UTF-8"?><comments xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main">' +
  '<authors><author>Ana</author><author>Bo</author></authors><commentList>' +
  '<comment ref="B2" authorId="1"><text><r><rPr><b/></rPr><t>Bo:</t></r><r><t xml:space="preserve"> check this</t></r></text></comment>' +
  '<comment ref="A1" authorId="0"><text><t>plain note</t></text></comment>' +
  '</commentList></comments>';

let tmp: TempDir;
let file: string;
beforeAll(async () => {
  tmp = await tempDir();
  file = await tmp.package('drawing.xlsx', {
    sheets: [
      {
        name: 'Data',
        body: `<sheetData>${row(1, '<c r="A1"><v>1</v></c>')}${row(2, '<c r="B2"><v>2</v></c>')}</sheetData><drawing r:id="rD"/><legacyDrawing r:id="rV"/>`,
        rels: [
          ['rD', 'drawing', '../drawings/drawing1.xml'],
          ['rC', 'comments', '../comments1.xml'],
        ],
      },
    ],
    parts: {
      'xl/drawings/drawing1.xml': DRAWING,
      'xl/drawings/_rels/drawing1.xml.rels': `<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rChart" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/chart" Target="../charts/chart1.xml"/></Relationships>`,
      'xl/charts/chart1.xml': CHART,
      'xl/comments1.xml': COMMENTS,
    },
  });
});
afterAll(() => tmp.remove());

async function sheet(mode: 'light' | 'standard' | 'verbose'): Promise<SheetData> {
  return (await extractWorkbook(file, { mode })).workbook.sheets.Data!;
}

describe('standard mode', () => {
  it('keeps shapes with text, connectors, glued shapes and described pictures, in z-order with stable ids', async () => {
    const { shapes } = await sheet('standard');
    expect(shapes).toEqual([
      { id: 1, text: 'Start\nhere', l: 100, t: 50, kind: 'shape', type: 'AutoShape-FlowchartProcess' },
      { id: 2, text: 'note', l: 300, t: 200, kind: 'shape', type: 'TextBox-Rectangle' },
      // No text, but the connector is glued to it, so the graph stays complete.
      { id: 3, l: 100, t: 200, kind: 'shape', type: 'AutoShape-Oval' },
      {
        l: 120,
        t: 80,
        kind: 'arrow',
        begin_arrow_style: 6,
        end_arrow_style: 4,
        begin_id: 3,
        end_id: 1,
        direction: 'N',
      },
      // Group children, flattened and mapped through the group's scale.
      { id: 6, text: 'left', l: 400, t: 100, kind: 'shape', type: 'AutoShape-Rectangle' },
      { id: 7, text: 'right', l: 500, t: 150, kind: 'shape', type: 'AutoShape-Rectangle' },
      { id: 8, text: 'Company logo', l: 10, t: 400, kind: 'shape', type: 'Picture', name: 'Logo' },
    ]);
  });

  it('reads the chart: type, title, axis titles, explicit value range and every series', async () => {
    const { charts } = await sheet('standard');
    expect(charts).toEqual([
      {
        name: 'Sales chart',
        chart_type: 'Bar',
        title: 'Sales by region',
        // As the original: y is the value axis (here drawn horizontally), x the category axis.
        x_axis_title: 'Region',
        y_axis_title: 'Units',
        y_axis_range: [0, 1000],
        series: [
          { name: 'North', name_range: 'Data!$B$1', x_range: 'Data!$A$2:$A$5', y_range: 'Data!$B$2:$B$5' },
          { name: 'Literal', y_range: 'Data!$C$2:$C$5' },
        ],
        l: 96,
        t: 60,
      },
    ]);
  });

  it('lists cell comments with author and flattened text', async () => {
    expect((await sheet('standard')).comments).toEqual([
      { cell: 'B2', author: 'Bo', text: 'Bo: check this' },
      { cell: 'A1', author: 'Ana', text: 'plain note' },
    ]);
  });
});

describe('other modes', () => {
  it('verbose adds every shape (hidden ones too) with its size, and chart sizes', async () => {
    const { shapes, charts } = await sheet('verbose');
    expect(shapes?.map((s) => [s.id, s.kind, s.w, s.h])).toEqual([
      [1, 'shape', 80, 30],
      [2, 'shape', 60, 20],
      [3, 'shape', 40, 40],
      [4, 'shape', 10, 10],
      [5, 'shape', 10, 10],
      [undefined, 'arrow', 0, 120],
      [6, 'shape', 40, 20],
      [7, 'shape', 40, 20],
      [8, 'shape', 50, 50],
      [9, 'shape', 50, 50],
    ]);
    expect(shapes?.[3]).toMatchObject({ type: 'AutoShape-5pointStar' });
    expect(charts?.[0]).toMatchObject({ l: 96, t: 60, w: 192, h: 150 });
  });

  it('light mode reads no drawings or comments', async () => {
    const light = await sheet('light');
    expect(light.shapes).toBeUndefined();
    expect(light.charts).toBeUndefined();
    expect(light.comments).toBeUndefined();
  });
});

describe('geometry', () => {
  it('gives the compass heading from start to end, north up the sheet, flips and rotation applied', () => {
    expect(lineDirection(0, 100, false, false, 0)).toBe('S');
    expect(lineDirection(0, 100, false, true, 0)).toBe('N');
    expect(lineDirection(100, 0, false, false, 0)).toBe('E');
    expect(lineDirection(100, 0, true, false, 0)).toBe('W');
    expect(lineDirection(100, 100, false, false, 0)).toBe('SE');
    expect(lineDirection(100, 100, true, true, 0)).toBe('NW');
    expect(lineDirection(100, 0, false, false, 90)).toBe('S');
    expect(lineDirection(0, 0, false, false, 0)).toBeUndefined();
  });

  it('names shape types as Office does', () => {
    expect(shapeTypeName('flowChartDecision', false)).toBe('AutoShape-FlowchartDecision');
    expect(shapeTypeName('rect', true)).toBe('TextBox-Rectangle');
    expect(shapeTypeName('roundRect', false)).toBe('AutoShape-RoundedRectangle');
    expect(shapeTypeName('cloud', false)).toBe('AutoShape-Cloud');
    expect(shapeTypeName(undefined, false)).toBeUndefined();
  });

  it('connector arrows keep kind "arrow" in the model types', () => {
    const arrow: Arrow = { kind: 'arrow', l: 0, t: 0, direction: 'E' };
    expect(arrow.kind).toBe('arrow');
  });
});

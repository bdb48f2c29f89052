// A test-only check of what Excel is strict about and lenient readers (openpyxl, LibreOffice) are not:
// the children of xsd:sequence types in schema order, a few required attributes, `count` attributes,
// content types and relationships, and for charts their required elements, axis ids, series idx/order,
// c:f references and caches, and chart frames. A workbook failing it may open in Excel only after "We
// found a problem with some content… Repair?".
//
// The sequences are those of ECMA-376 (Transitional) as its schema fragments are quoted in public
// sources: CT_Worksheet from [MS-OFFMACRO] 2.2.4 (quoting sml.xsd), CT_Workbook, CT_Stylesheet,
// CT_Xf, CT_Cell, CT_Table, CT_Metadata, CT_TwoCellAnchor as quoted by readers and writers that
// implement them (docx4j/xlsx4j, Infragistics, Open XML SDK docs), the chart types from python-pptx's
// analysis pages (dml-chart.xsd, denormalized). Only the names are listed, in order; an element of the
// type's own namespace that is not listed is reported too, one of another namespace (mc:, x14:, …) is
// left alone.
import { SaxesParser, type SaxesTagNS } from 'saxes';

const S = 'http://schemas.openxmlformats.org/spreadsheetml/2006/main';
const C = 'http://schemas.openxmlformats.org/drawingml/2006/chart';
const XDR = 'http://schemas.openxmlformats.org/drawingml/2006/spreadsheetDrawing';
const R = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';
const CT = 'http://schemas.openxmlformats.org/package/2006/content-types';
const PR = 'http://schemas.openxmlformats.org/package/2006/relationships';

const seq = (names: string): string[] => names.trim().split(/\s+/);

// Keyed by namespace, then by `parent>child` (where one name has different types by parent) or name.
const SEQUENCES: Record<string, Record<string, string[]>> = {
  [S]: {
    worksheet: seq(`sheetPr dimension sheetViews sheetFormatPr cols sheetData sheetCalcPr sheetProtection
      protectedRanges scenarios autoFilter sortState dataConsolidate customSheetViews mergeCells phoneticPr
      conditionalFormatting dataValidations hyperlinks printOptions pageMargins pageSetup headerFooter
      rowBreaks colBreaks customProperties cellWatches ignoredErrors smartTags drawing legacyDrawing
      legacyDrawingHF picture oleObjects controls webPublishItems tableParts extLst`),
    row: seq('c extLst'),
    c: seq('f v is extLst'),
    workbook: seq(`fileVersion fileSharing workbookPr workbookProtection bookViews sheets functionGroups
      externalReferences definedNames calcPr oleSize customWorkbookViews pivotCaches smartTagPr
      smartTagTypes webPublishing fileRecoveryPr webPublishObjects extLst`),
    styleSheet: seq(`numFmts fonts fills borders cellStyleXfs cellXfs cellStyles dxfs tableStyles colors
      extLst`),
    xf: seq('alignment protection extLst'),
    dxf: seq('font numFmt fill alignment protection border extLst'),
    patternFill: seq('fgColor bgColor'),
    border: seq('left right top bottom diagonal vertical horizontal'),
    table: seq('autoFilter sortState tableColumns tableStyleInfo extLst'),
    tableColumn: seq('calculatedColumnFormula totalsRowFormula xmlColumnPr extLst'),
    metadata: seq(`metadataTypes metadataStrings mdxMetadata futureMetadata cellMetadata valueMetadata
      extLst`),
  },
  [XDR]: {
    twoCellAnchor: seq('from to sp grpSp graphicFrame cxnSp pic contentPart clientData'),
    oneCellAnchor: seq('from ext sp grpSp graphicFrame cxnSp pic contentPart clientData'),
    absoluteAnchor: seq('pos ext sp grpSp graphicFrame cxnSp pic contentPart clientData'),
    from: seq('col colOff row rowOff'),
    to: seq('col colOff row rowOff'),
    graphicFrame: seq('nvGraphicFramePr xfrm'),
  },
  [C]: {
    chartSpace: seq(`date1904 lang roundedCorners style clrMapOvr pivotSource protection chart spPr txPr
      externalData printSettings userShapes extLst`),
    chart: seq(`title autoTitleDeleted pivotFmts view3D floor sideWall backWall plotArea legend plotVisOnly
      dispBlanksAs showDLblsOverMax extLst`),
    // The chart groups are one choice (any order), then the axes (another), then dTable spPr extLst.
    plotArea: seq('layout *chart *axis dTable spPr extLst'),
    title: seq('tx layout overlay spPr txPr extLst'),
    legend: seq('legendPos legendEntry layout overlay spPr txPr extLst'),
    barChart: seq('barDir grouping varyColors ser dLbls gapWidth overlap serLines axId extLst'),
    lineChart: seq('grouping varyColors ser dLbls dropLines hiLowLines upDownBars marker smooth axId extLst'),
    areaChart: seq('grouping varyColors ser dLbls dropLines axId extLst'),
    pieChart: seq('varyColors ser dLbls firstSliceAng extLst'),
    doughnutChart: seq('varyColors ser dLbls firstSliceAng holeSize extLst'),
    scatterChart: seq('scatterStyle varyColors ser dLbls axId extLst'),
    radarChart: seq('radarStyle varyColors ser dLbls axId extLst'),
    'barChart>ser': seq(`idx order tx spPr invertIfNegative pictureOptions dPt dLbls trendline errBars cat val
      shape extLst`),
    'lineChart>ser': seq('idx order tx spPr marker dPt dLbls trendline errBars cat val smooth extLst'),
    'areaChart>ser': seq('idx order tx spPr pictureOptions dPt dLbls trendline errBars cat val extLst'),
    'pieChart>ser': seq('idx order tx spPr explosion dPt dLbls cat val extLst'),
    'doughnutChart>ser': seq('idx order tx spPr explosion dPt dLbls cat val extLst'),
    'scatterChart>ser': seq('idx order tx spPr marker dPt dLbls trendline errBars xVal yVal smooth extLst'),
    'radarChart>ser': seq('idx order tx spPr marker dPt dLbls cat val extLst'),
    'ser>marker': seq('symbol size spPr extLst'),
    strRef: seq('f strCache extLst'),
    numRef: seq('f numCache extLst'),
    scaling: seq('logBase orientation max min extLst'),
    catAx: seq(`axId scaling delete axPos majorGridlines minorGridlines title numFmt majorTickMark
      minorTickMark tickLblPos spPr txPr crossAx crosses auto lblAlgn lblOffset tickLblSkip tickMarkSkip
      noMultiLvlLbl extLst`),
    valAx: seq(`axId scaling delete axPos majorGridlines minorGridlines title numFmt majorTickMark
      minorTickMark tickLblPos spPr txPr crossAx crosses crossBetween majorUnit minorUnit dispUnits
      extLst`),
  },
};
const CHART_GROUPS = new Set(
  seq(`areaChart area3DChart lineChart line3DChart stockChart radarChart scatterChart pieChart pie3DChart
    doughnutChart barChart bar3DChart ofPieChart surfaceChart surface3DChart bubbleChart`),
);
const AXES = new Set(seq('valAx catAx dateAx serAx'));
/** One slot for two names: crosses/crossesAt are a choice; Strict's border start/end are left/right. */
const SAME_SLOT: Record<string, string> = { crossesAt: 'crosses', start: 'left', end: 'right' };

/** Elements whose `count` is the number of their element children, where present. */
const COUNTED: Record<string, Set<string>> = {
  [S]: new Set(
    seq(`mergeCells cellXfs cellStyleXfs fonts fills borders numFmts cellStyles dxfs tableStyles
      tableColumns metadataTypes cellMetadata valueMetadata futureMetadata dataValidations`),
  ),
};

/** Attributes the schema requires (use="required"). */
const REQUIRED: Record<string, Record<string, string[]>> = {
  [S]: {
    sheet: ['name', 'sheetId', `{${R}}id`],
    mergeCell: ['ref'],
    table: ['id', 'displayName', 'ref'],
    tableColumn: ['id', 'name'],
    tablePart: [`{${R}}id`],
    drawing: [`{${R}}id`],
    col: ['min', 'max'],
    definedName: ['name'],
    numFmt: ['numFmtId', 'formatCode'],
  },
  [XDR]: { cNvPr: ['id', 'name'] },
};

interface Node {
  ns: string;
  local: string;
  attrs: Map<string, string>;
  children: Node[];
  text: string;
}

function parse(xml: string): Node | undefined {
  const parser = new SaxesParser({ xmlns: true });
  const stack: Node[] = [];
  let root: Node | undefined;
  parser.on('opentag', (tag: SaxesTagNS) => {
    const attrs = new Map<string, string>();
    for (const a of Object.values(tag.attributes))
      attrs.set(a.uri && a.prefix !== 'xmlns' ? `{${a.uri}}${a.local}` : a.local, a.value);
    const node: Node = { ns: tag.uri, local: tag.local, attrs, children: [], text: '' };
    if (stack.length) stack[stack.length - 1]!.children.push(node);
    else root = node;
    if (!tag.isSelfClosing) stack.push(node);
  });
  parser.on('closetag', (tag) => {
    if (!tag.isSelfClosing) stack.pop();
  });
  const text = (t: string) => {
    if (stack.length) stack[stack.length - 1]!.text += t;
  };
  parser.on('text', text);
  parser.on('cdata', text);
  parser.write(xml.replace(/^\uFEFF/, '')).close();
  return root;
}

function sequenceFor(parent: Node | undefined, node: Node): string[] | undefined {
  const rules = SEQUENCES[node.ns];
  if (!rules) return undefined;
  return (parent && rules[`${parent.local}>${node.local}`]) ?? rules[node.local];
}

function slotOf(order: string[], child: string): number {
  const name = SAME_SLOT[child] ?? child;
  if (order.includes('*chart') && CHART_GROUPS.has(name)) return order.indexOf('*chart');
  if (order.includes('*axis') && AXES.has(name)) return order.indexOf('*axis');
  return order.indexOf(name);
}

/** The problems of one XML part (order, counts, required attributes), each a stable line. */
export function xmlPartProblems(part: string, xml: string): string[] {
  const problems: string[] = [];
  const root = parse(xml);
  const visit = (node: Node, parent: Node | undefined, path: string) => {
    const here = `${path}/${node.local}`;
    const order = sequenceFor(parent, node);
    if (order) {
      let last = -1;
      let lastName = '';
      for (const child of node.children) {
        if (child.ns !== node.ns) continue;
        const slot = slotOf(order, child.local);
        if (slot < 0) problems.push(`${part}: ${here}: unexpected child <${child.local}>`);
        else if (slot < last)
          problems.push(`${part}: ${here}: <${child.local}> after <${lastName}> (schema order)`);
        else {
          last = slot;
          lastName = child.local;
        }
      }
    }
    const count = node.attrs.get('count');
    if (count !== undefined && COUNTED[node.ns]?.has(node.local)) {
      const n = node.children.filter((c) => c.ns === node.ns).length;
      if (Number(count) !== n) problems.push(`${part}: ${here}: count="${count}" but ${n} children`);
    }
    for (const attr of REQUIRED[node.ns]?.[node.local] ?? [])
      if (!node.attrs.has(attr)) problems.push(`${part}: ${here}: missing required attribute ${attr}`);
    for (const child of node.children) visit(child, node, here);
  };
  if (root) visit(root, undefined, '');
  return problems;
}

/** The part a .rels belongs to ('' for the package's _rels/.rels). */
const ownerOf = (rels: string): string => rels.replace(/(^|\/)_rels\/([^/]*)\.rels$/, '$1$2');

/** Resolves a relationship target against the part that owns the .rels. */
function resolveTarget(relsPart: string, target: string): string {
  if (target.startsWith('/')) return target.slice(1);
  const owner = ownerOf(relsPart);
  const base = owner.includes('/') ? owner.slice(0, owner.lastIndexOf('/') + 1) : '';
  const out: string[] = [];
  for (const seg of (base + target).split('/')) {
    if (seg === '..') out.pop();
    else if (seg !== '.' && seg !== '') out.push(seg);
  }
  return out.join('/');
}

/**
 * The problems of a whole package: each XML part's, then content types (every part has one; every
 * Override names a part), relationships (every internal target exists; every r:id of a part is one of
 * its relationships), and workbook-wide uniqueness of table ids and names and of sheet ids and names.
 */
export function packageProblems(parts: Map<string, Buffer>): string[] {
  const problems: string[] = [];
  const names = new Set([...parts.keys()].filter((n) => !n.endsWith('/')));
  const text = (name: string) => parts.get(name)!.toString('utf8');
  const trees = new Map<string, Node | undefined>();
  for (const name of names) {
    if (!/\.(xml|rels|vml)$/i.test(name)) continue;
    try {
      problems.push(...xmlPartProblems(name, text(name)));
      trees.set(name, parse(text(name)));
    } catch (error) {
      problems.push(`${name}: not well-formed XML (${(error as Error).message.split('\n')[0]})`);
    }
  }
  const types = trees.get('[Content_Types].xml');
  if (!types) problems.push('[Content_Types].xml: missing');
  else {
    const defaults = new Set<string>();
    const overrides = new Set<string>();
    for (const t of types.children) {
      if (t.ns !== CT) continue;
      if (t.local === 'Default') defaults.add((t.attrs.get('Extension') ?? '').toLowerCase());
      if (t.local === 'Override') {
        const partName = (t.attrs.get('PartName') ?? '').replace(/^\//, '');
        overrides.add(partName.toLowerCase());
        if (![...names].some((n) => n.toLowerCase() === partName.toLowerCase()))
          problems.push(`[Content_Types].xml: Override for missing part /${partName}`);
      }
    }
    for (const name of names) {
      if (name === '[Content_Types].xml') continue;
      const ext = name.includes('.') ? name.slice(name.lastIndexOf('.') + 1).toLowerCase() : '';
      if (!overrides.has(name.toLowerCase()) && !defaults.has(ext))
        problems.push(`[Content_Types].xml: no content type for /${name}`);
    }
  }
  for (const [name, tree] of trees) {
    if (!name.endsWith('.rels') || !tree) continue;
    const owner = ownerOf(name);
    if (owner && !names.has(owner)) problems.push(`${name}: relationships of missing part ${owner}`);
    const ids = new Set<string>();
    for (const rel of tree.children) {
      if (rel.ns !== PR || rel.local !== 'Relationship') continue;
      const id = rel.attrs.get('Id') ?? '';
      if (ids.has(id)) problems.push(`${name}: duplicate relationship Id ${id}`);
      ids.add(id);
      if (rel.attrs.get('TargetMode') === 'External') continue;
      const target = resolveTarget(name, rel.attrs.get('Target') ?? '');
      if (!names.has(target)) problems.push(`${name}: ${id} targets missing part ${target}`);
    }
    const source = owner && trees.get(owner);
    if (!source) continue;
    const walk = (node: Node) => {
      for (const [key, value] of node.attrs)
        if (key.startsWith(`{${R}}`) && ['id', 'embed', 'link', 'pict'].includes(key.slice(R.length + 2)))
          if (!ids.has(value))
            problems.push(
              `${owner}: <${node.local}> r:${key.slice(R.length + 2)}="${value}" is no relationship`,
            );
      node.children.forEach(walk);
    };
    walk(source);
  }
  const tableIds = new Map<string, string>();
  const tableNames = new Map<string, string>();
  for (const [name, tree] of trees) {
    if (!tree || tree.ns !== S || tree.local !== 'table') continue;
    const id = tree.attrs.get('id') ?? '';
    const display = (tree.attrs.get('displayName') ?? '').toLowerCase();
    if (tableIds.has(id)) problems.push(`${name}: table id ${id} also in ${tableIds.get(id)}`);
    if (tableNames.has(display))
      problems.push(`${name}: table name ${display} also in ${tableNames.get(display)}`);
    tableIds.set(id, name);
    tableNames.set(display, name);
  }
  const workbook = [...trees.values()].find((t) => t?.ns === S && t.local === 'workbook');
  const sheets = workbook?.children.find((n) => n.local === 'sheets')?.children ?? [];
  for (const key of ['sheetId', 'name']) {
    const seen = sheets.map((s) => (s.attrs.get(key) ?? '').toLowerCase());
    if (new Set(seen).size !== seen.length)
      problems.push(`workbook: duplicate sheet ${key} (${seen.join(', ')})`);
  }
  if (workbook) problems.push(...workbookProblems(trees, workbook, sheets));
  if (workbook) problems.push(...chartProblems(trees, types, sheets));
  return problems;
}

const kids = (node: Node | undefined, local: string): Node[] =>
  node?.children.filter((c) => c.local === local) ?? [];
const kid = (node: Node | undefined, local: string): Node | undefined => kids(node, local)[0];
/** All text of a string item, without phonetic runs. */
const itemText = (node: Node): string =>
  node.local === 'rPh' || node.local === 'phoneticPr'
    ? ''
    : node.local === 't'
      ? node.text
      : node.children.map(itemText).join('');

function colNumber(letters: string): number {
  let n = 0;
  for (const ch of letters.toUpperCase()) n = n * 26 + ch.charCodeAt(0) - 64;
  return n;
}
interface Box {
  r1: number;
  c1: number;
  r2: number;
  c2: number;
}
function box(ref: string): Box | undefined {
  const m = /^\$?([A-Z]+)\$?(\d+)(?::\$?([A-Z]+)\$?(\d+))?$/i.exec(ref);
  if (!m) return undefined;
  const [c1, r1] = [colNumber(m[1]!), Number(m[2])];
  const [c2, r2] = m[3] ? [colNumber(m[3]), Number(m[4])] : [c1, r1];
  return { r1: Math.min(r1, r2), c1: Math.min(c1, c2), r2: Math.max(r1, r2), c2: Math.max(c1, c2) };
}
const overlap = (a: Box, b: Box) => a.r1 <= b.r2 && b.r1 <= a.r2 && a.c1 <= b.c2 && b.c1 <= a.c2;

/** The parts a part's relationships point at, by relationship type suffix. */
function related(trees: Map<string, Node | undefined>, part: string, type: string): string[] {
  const rels = part.replace(/([^/]*)$/, '_rels/$1.rels');
  return kids(trees.get(rels), 'Relationship')
    .filter(
      (r) => (r.attrs.get('Type') ?? '').endsWith(`/${type}`) && r.attrs.get('TargetMode') !== 'External',
    )
    .map((r) => resolveTarget(rels, r.attrs.get('Target') ?? ''));
}

/**
 * What Excel repairs beyond the schema: rows and cells out of order, overlapping merges, a table whose
 * header cells differ from its column names (or whose column count differs from its width), duplicate
 * defined names, style indexes past their lists, duplicate shape ids in a drawing, a wrong uniqueCount.
 */
function workbookProblems(trees: Map<string, Node | undefined>, workbook: Node, sheets: Node[]): string[] {
  const problems: string[] = [];
  const wbPart = [...trees].find(([, t]) => t === workbook)![0];
  const sstPart = related(trees, wbPart, 'sharedStrings')[0];
  const sst = kids(sstPart ? trees.get(sstPart) : undefined, 'si').map(itemText);
  const sstRoot = sstPart ? trees.get(sstPart) : undefined;
  const unique = sstRoot?.attrs.get('uniqueCount');
  if (unique !== undefined && Number(unique) !== sst.length)
    problems.push(`${sstPart}: uniqueCount="${unique}" but ${sst.length} items`);
  const stylesPart = related(trees, wbPart, 'styles')[0];
  const styles = stylesPart ? trees.get(stylesPart) : undefined;
  const listed = (list: string, item: string) => kids(kid(styles, list), item).length;
  const xfCount = listed('cellXfs', 'xf');
  for (const list of ['cellXfs', 'cellStyleXfs'])
    for (const [i, xf] of kids(kid(styles, list), 'xf').entries())
      for (const [attr, target, item] of [
        ['fontId', 'fonts', 'font'],
        ['fillId', 'fills', 'fill'],
        ['borderId', 'borders', 'border'],
      ] as const) {
        const v = xf.attrs.get(attr);
        if (v !== undefined && Number(v) >= listed(target, item))
          problems.push(
            `${stylesPart}: ${list} xf ${i} ${attr}="${v}" past ${listed(target, item)} ${target}`,
          );
      }
  const customFormats = new Set(kids(kid(styles, 'numFmts'), 'numFmt').map((n) => n.attrs.get('numFmtId')));
  for (const [i, xf] of kids(kid(styles, 'cellXfs'), 'xf').entries()) {
    const id = Number(xf.attrs.get('numFmtId') ?? 0);
    if (id >= 164 && !customFormats.has(String(id)))
      problems.push(`${stylesPart}: cellXfs xf ${i} numFmtId="${id}" is not defined`);
  }
  const dxfCount = listed('dxfs', 'dxf');

  const definedNames = new Set<string>();
  for (const dn of kids(kid(workbook, 'definedNames'), 'definedName')) {
    const key = `${(dn.attrs.get('name') ?? '').toLowerCase()}@${dn.attrs.get('localSheetId') ?? ''}`;
    if (definedNames.has(key)) problems.push(`${wbPart}: defined name ${key} twice`);
    definedNames.add(key);
    const local = dn.attrs.get('localSheetId');
    if (local !== undefined && Number(local) >= sheets.length)
      problems.push(`${wbPart}: defined name ${key}: localSheetId past the ${sheets.length} sheets`);
  }

  const wbRels = trees.get(wbPart.replace(/([^/]*)$/, '_rels/$1.rels'));
  for (const sheet of sheets) {
    const rid = sheet.attrs.get(`{${R}}id`);
    const rel = kids(wbRels, 'Relationship').find((r) => r.attrs.get('Id') === rid);
    if (!rel) continue;
    const part = resolveTarget(wbPart.replace(/([^/]*)$/, '_rels/$1.rels'), rel.attrs.get('Target') ?? '');
    const ws = trees.get(part);
    if (!ws || ws.local !== 'worksheet') continue;
    const cells = new Map<string, Node>();
    let lastRow = 0;
    for (const row of kids(kid(ws, 'sheetData'), 'row')) {
      const r = Number(row.attrs.get('r') ?? lastRow + 1);
      if (r <= lastRow) problems.push(`${part}: row ${r} after row ${lastRow}`);
      lastRow = r;
      let lastCol = 0;
      for (const c of kids(row, 'c')) {
        const ref = c.attrs.get('r');
        const at = ref ? box(ref) : { r1: r, c1: lastCol + 1, r2: r, c2: lastCol + 1 };
        if (!at || at.r1 !== r) problems.push(`${part}: cell ${ref} in row ${r}`);
        else if (at.c1 <= lastCol) problems.push(`${part}: cell ${ref} after column ${lastCol} of row ${r}`);
        if (at) {
          lastCol = at.c1;
          cells.set(`${at.r1},${at.c1}`, c);
        }
        const st = c.attrs.get('s');
        if (st !== undefined && Number(st) >= xfCount)
          problems.push(`${part}: cell ${ref} s="${st}" past ${xfCount} cellXfs`);
      }
    }
    for (const cf of kids(ws, 'conditionalFormatting'))
      for (const rule of kids(cf, 'cfRule')) {
        const dxf = rule.attrs.get('dxfId');
        if (dxf !== undefined && Number(dxf) >= dxfCount)
          problems.push(`${part}: cfRule dxfId="${dxf}" past ${dxfCount} dxfs`);
      }
    const merges = kids(kid(ws, 'mergeCells'), 'mergeCell').map((m) => ({
      ref: m.attrs.get('ref') ?? '',
      at: box(m.attrs.get('ref') ?? ''),
    }));
    for (const [i, a] of merges.entries())
      for (const b of merges.slice(i + 1))
        if (a.at && b.at && overlap(a.at, b.at))
          problems.push(`${part}: merges ${a.ref} and ${b.ref} overlap`);
    const valueOf = (row: number, col: number): string | undefined => {
      const c = cells.get(`${row},${col}`);
      if (!c) return undefined;
      const t = c.attrs.get('t');
      if (t === 's') return sst[Number(kid(c, 'v')?.text)];
      if (t === 'inlineStr') return itemText(kid(c, 'is') ?? c);
      if (t === 'str') return kid(c, 'v')?.text;
      return kid(c, 'v') ? '' : undefined; // a number: not compared
    };
    for (const tablePart of related(trees, part, 'table')) {
      const table = trees.get(tablePart);
      const ref = table && box(table.attrs.get('ref') ?? '');
      if (!table || !ref) continue;
      const columns = kids(kid(table, 'tableColumns'), 'tableColumn');
      if (columns.length !== ref.c2 - ref.c1 + 1)
        problems.push(`${tablePart}: ${columns.length} tableColumns for ${ref.c2 - ref.c1 + 1} columns`);
      const seen = new Set<string>();
      for (const [i, col] of columns.entries()) {
        const name = col.attrs.get('name') ?? '';
        if (seen.has(name.toLowerCase())) problems.push(`${tablePart}: column name ${name} twice`);
        seen.add(name.toLowerCase());
        if (table.attrs.get('headerRowCount') === '0') continue;
        const header = valueOf(ref.r1, ref.c1 + i);
        if (header !== '' && header !== name)
          problems.push(
            `${tablePart}: column ${i + 1} is "${name}" but its header cell holds ${JSON.stringify(header)}`,
          );
      }
      for (const m of merges)
        if (m.at && overlap(m.at, ref))
          problems.push(`${tablePart}: table ${table.attrs.get('ref')} overlaps merge ${m.ref}`);
    }
    const drawings = related(trees, part, 'drawing');
    if (drawings.length > 1) problems.push(`${part}: ${drawings.length} drawing parts (one allowed)`);
    for (const drawingPart of drawings) {
      const ids = new Set<string>();
      const walk = (node: Node) => {
        if (node.ns === XDR && node.local === 'cNvPr') {
          const id = node.attrs.get('id') ?? '';
          if (ids.has(id)) problems.push(`${drawingPart}: shape id ${id} twice`);
          ids.add(id);
        }
        node.children.forEach(walk);
      };
      const drawing = trees.get(drawingPart);
      if (drawing) walk(drawing);
    }
  }
  return problems;
}

const A = 'http://schemas.openxmlformats.org/drawingml/2006/main';
const CHART_TYPE = 'application/vnd.openxmlformats-officedocument.drawingml.chart+xml';
const DRAWING_TYPE = 'application/vnd.openxmlformats-officedocument.drawing+xml';
/** Chart groups whose series are plotted on a pair of axes (the 3-D ones and bubble left out). */
const AXIS_GROUPS = new Set(seq('barChart lineChart areaChart scatterChart radarChart stockChart'));
/** Children a chart group cannot do without (minOccurs=1 in dml-chart.xsd). */
const GROUP_REQUIRED: Record<string, string[]> = {
  barChart: ['barDir'],
  scatterChart: ['scatterStyle'],
  radarChart: ['radarStyle'],
};

/**
 * Whether Excel needs a sheet name quoted before `!`: anything but letters, digits, `_` and `.`
 * (not first), a name like a cell (`Q1`), or one that an R1C1 reader takes for a reference (`R`, `C`,
 * `RC`, `R2C3`, `C1x`): Excel reads the unquoted name as a reference and repairs the part.
 */
function sheetNeedsQuotes(name: string): boolean {
  return (
    !/^[A-Za-z_\u00C0-\uFFFF][\w.\u00C0-\uFFFF]*$/.test(name) ||
    /^[A-Za-z]{1,3}\d+$/.test(name) ||
    /^(?:[RC]|RC)$|^(?:R\d|C\d|RC\d)/i.test(name)
  );
}

/** The number of cells of a one-area reference. */
const cellCount = (b: Box) => (b.r2 - b.r1 + 1) * (b.c2 - b.c1 + 1);

/**
 * What makes Excel drop a chart or repair its drawing beyond the schema order: a chart part without
 * its plot area, an axis-based group without its two axIds (or naming axes that are not there), axes
 * without axId/scaling/axPos/crossAx or not crossing each other, series idx/order repeated, a series
 * reference (`c:f`) to a missing sheet, with an unquoted name Excel reads otherwise, or a cache whose
 * points do not fit its ptCount or reference; a chart frame without its parts, whose r:id does not
 * lead to a chart part, or without clientData; chart and drawing parts without their content types.
 */
function chartProblems(
  trees: Map<string, Node | undefined>,
  types: Node | undefined,
  sheets: Node[],
): string[] {
  const problems: string[] = [];
  const sheetNames = new Set(sheets.map((s) => s.attrs.get('name') ?? ''));
  const overrides = new Map(
    kids(types, 'Override').map((o) => [
      (o.attrs.get('PartName') ?? '').replace(/^\//, '').toLowerCase(),
      o.attrs.get('ContentType') ?? '',
    ]),
  );
  const descendants = (node: Node, local: string, out: Node[] = []): Node[] => {
    for (const c of node.children) {
      if (c.local === local) out.push(c);
      descendants(c, local, out);
    }
    return out;
  };
  const val = (node: Node | undefined) => node?.attrs.get('val');
  for (const [part, tree] of trees) {
    if (!tree) continue;
    if (tree.ns === C && tree.local === 'chartSpace') {
      if (overrides.get(part.toLowerCase()) !== CHART_TYPE)
        problems.push(`${part}: content type is not ${CHART_TYPE}`);
      const plotArea = kid(kid(tree, 'chart'), 'plotArea');
      if (!plotArea) {
        problems.push(`${part}: no c:chart/c:plotArea`);
        continue;
      }
      const groups = plotArea.children.filter((c) => c.ns === C && CHART_GROUPS.has(c.local));
      if (!groups.length) problems.push(`${part}: plotArea without a chart group`);
      const axes = plotArea.children.filter((c) => c.ns === C && AXES.has(c.local));
      const axisIds = new Map<string, Node>();
      for (const axis of axes) {
        for (const need of ['axId', 'scaling', 'axPos', 'crossAx'])
          if (!kid(axis, need)) problems.push(`${part}: <${axis.local}> without <${need}>`);
        if (kid(axis, 'scaling') && !kid(kid(axis, 'scaling'), 'orientation'))
          problems.push(`${part}: <${axis.local}> scaling without <orientation>`);
        const id = val(kid(axis, 'axId')) ?? '';
        if (axisIds.has(id)) problems.push(`${part}: axis id ${id} twice`);
        axisIds.set(id, axis);
      }
      for (const [id, axis] of axisIds) {
        const cross = val(kid(axis, 'crossAx')) ?? '';
        const other = axisIds.get(cross);
        if (!other || cross === id) problems.push(`${part}: axis ${id} crosses ${cross}, no other axis`);
        else if (val(kid(other, 'crossAx')) !== id)
          problems.push(`${part}: axis ${id} crosses ${cross}, which crosses ${val(kid(other, 'crossAx'))}`);
      }
      const used = new Set<string>();
      const idx = new Set<string>();
      const order = new Set<string>();
      for (const group of groups) {
        for (const need of GROUP_REQUIRED[group.local] ?? [])
          if (!kid(group, need)) problems.push(`${part}: <${group.local}> without <${need}>`);
        const ids = kids(group, 'axId').map((a) => val(a) ?? '');
        if (AXIS_GROUPS.has(group.local) && ids.length !== 2)
          problems.push(`${part}: <${group.local}> with ${ids.length} axId (2 needed)`);
        for (const id of ids) {
          used.add(id);
          if (!axisIds.has(id)) problems.push(`${part}: <${group.local}> axId ${id} names no axis`);
        }
        for (const ser of kids(group, 'ser')) {
          for (const [key, seen] of [
            ['idx', idx],
            ['order', order],
          ] as const) {
            const v = val(kid(ser, key));
            if (v === undefined) problems.push(`${part}: <${group.local}> series without <${key}>`);
            else if (seen.has(v)) problems.push(`${part}: series ${key} ${v} twice`);
            else seen.add(v);
          }
        }
      }
      for (const id of axisIds.keys())
        if (!used.has(id)) problems.push(`${part}: axis ${id} belongs to no chart group`);
      for (const ref of [...descendants(tree, 'strRef'), ...descendants(tree, 'numRef')]) {
        const f = kid(ref, 'f')?.text.trim() ?? '';
        if (f.startsWith('#REF!')) continue; // a deleted sheet's, as Excel writes it
        const m = /^(?:'((?:[^']|'')+)'|([^'!]+))!(\$?[A-Z]+\$?\d+(?::\$?[A-Z]+\$?\d+)?)$/.exec(f);
        if (!m) {
          if (!f) problems.push(`${part}: <${ref.local}> without a formula`);
          continue; // names, unions: not checked
        }
        const sheet = m[1] !== undefined ? m[1].replace(/''/g, "'") : m[2]!;
        if (m[1] === undefined && sheetNeedsQuotes(sheet))
          problems.push(`${part}: ${f}: sheet name not quoted`);
        if (!sheetNames.has(sheet)) problems.push(`${part}: ${f}: no sheet ${sheet}`);
        const cache = kid(ref, ref.local === 'strRef' ? 'strCache' : 'numCache');
        if (!cache) continue;
        const count = Number(val(kid(cache, 'ptCount')));
        const at = box(m[3]!);
        if (!Number.isInteger(count)) problems.push(`${part}: ${f}: cache without ptCount`);
        else if (at && count !== cellCount(at))
          problems.push(`${part}: ${f}: cache ptCount ${count} for ${cellCount(at)} cells`);
        const pts = kids(cache, 'pt').map((p) => Number(p.attrs.get('idx')));
        if (new Set(pts).size !== pts.length || pts.some((i) => !(i >= 0 && i < count)))
          problems.push(`${part}: ${f}: cache points ${pts.join(',')} for ptCount ${count}`);
      }
    }
    if (tree.ns === XDR && tree.local === 'wsDr') {
      if (overrides.get(part.toLowerCase()) !== DRAWING_TYPE)
        problems.push(`${part}: content type is not ${DRAWING_TYPE}`);
      const relsPart = part.replace(/([^/]*)$/, '_rels/$1.rels');
      const rels = kids(trees.get(relsPart), 'Relationship');
      for (const anchor of tree.children) {
        if (!/^(twoCellAnchor|oneCellAnchor|absoluteAnchor)$/.test(anchor.local)) continue;
        const own = anchor.children.filter((c) => c.ns === XDR);
        if (own[own.length - 1]?.local !== 'clientData')
          problems.push(`${part}: <${anchor.local}> does not end with <clientData>`);
        for (const frame of kids(anchor, 'graphicFrame')) {
          const cNvPr = kid(kid(frame, 'nvGraphicFramePr'), 'cNvPr');
          if (!cNvPr || !kid(kid(frame, 'nvGraphicFramePr'), 'cNvGraphicFramePr'))
            problems.push(`${part}: graphicFrame without cNvPr/cNvGraphicFramePr`);
          if (!kid(frame, 'xfrm')) problems.push(`${part}: graphicFrame without <xfrm>`);
          const data = kid(
            kids(frame, 'graphic').find((g) => g.ns === A),
            'graphicData',
          );
          if (!data) problems.push(`${part}: graphicFrame without a:graphic/a:graphicData`);
          if (data?.attrs.get('uri') !== C) continue;
          const chart = data.children.find((c) => c.ns === C && c.local === 'chart');
          const rid = chart?.attrs.get(`{${R}}id`);
          const rel = rels.find((r) => r.attrs.get('Id') === rid);
          const target = rel && resolveTarget(relsPart, rel.attrs.get('Target') ?? '');
          if (!rel?.attrs.get('Type')?.endsWith('/chart') || trees.get(target ?? '')?.local !== 'chartSpace')
            problems.push(
              `${part}: chart frame ${cNvPr?.attrs.get('name')} r:id="${rid}" leads to no chart part`,
            );
        }
      }
    }
  }
  return problems;
}

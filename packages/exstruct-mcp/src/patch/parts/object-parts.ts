// Charts and tables the ops add or remove: what the ops decided (kept per edit, like undo-state.ts), and
// the package parts that carry it (chart, drawing and table parts, their relationships, content types,
// and the <drawing>/<tableParts> elements of the sheet) written by the package writer.
import { ToolError } from '@mcp-workbench/core/engine';
import path from 'node:path/posix';
import { relType, type Conformance } from '../../ooxml/namespaces.js';
import { parseRelationships, relsPartOf, type Relationship, type WorkbookPackage } from '../package.js';
import { freshPartName } from '../fresh-names.js';
import { exclusiveParts, sourcesOf } from '../part-references.js';
import type { SheetEdit } from '../sheet-edit.js';
import type { SheetRef, WorkbookEdit } from '../workbook-edit.js';
import { rewriteFormulaElements, rewriteRels } from '../workbook-xml.js';
import { readPartText } from '../part-errors.js';
import { appendChildren, escapeXml, findElement } from '../xml.js';

export const CONTENT_TYPES = {
  chart: 'application/vnd.openxmlformats-officedocument.drawingml.chart+xml',
  drawing: 'application/vnd.openxmlformats-officedocument.drawing+xml',
  table: 'application/vnd.openxmlformats-officedocument.spreadsheetml.table+xml',
} as const;

const XDR = 'http://schemas.openxmlformats.org/drawingml/2006/spreadsheetDrawing';
const A = 'http://schemas.openxmlformats.org/drawingml/2006/main';
const C = 'http://schemas.openxmlformats.org/drawingml/2006/chart';

export interface NewChart {
  name: string;
  /** The chartSpace XML. */
  xml: string;
  /** Top-left cell (0-based column, 0-based row as DrawingML counts) and size in EMU. */
  col: number;
  row: number;
  cx: number;
  cy: number;
  /** How many sheet renames and deletions of the patch came before the op (later ones apply to it). */
  renamesBefore: number;
  deletionsBefore: number;
}

export interface NewTable {
  name: string;
  xml: (id: number) => string;
}

interface SheetObjects {
  charts: NewChart[];
  tables: NewTable[];
  /** Names of charts (existing ones) to remove. */
  deleteCharts: string[];
  /** Names of tables (existing ones) to remove. */
  deleteTables: string[];
}

interface ObjectState {
  sheets: Map<SheetRef, SheetObjects>;
  /** Table names of the whole workbook (upper case), for uniqueness. */
  tableNames: Set<string>;
  /** Chart names already on each sheet's drawing (read when an op needs them). */
  chartNames: Map<SheetRef, string[]>;
}

const states = new WeakMap<WorkbookEdit, ObjectState>();

export function objectState(edit: WorkbookEdit): ObjectState {
  let state = states.get(edit);
  if (!state) states.set(edit, (state = { sheets: new Map(), tableNames: new Set(), chartNames: new Map() }));
  return state;
}

export function sheetObjects(edit: WorkbookEdit, ref: SheetRef): SheetObjects {
  const state = objectState(edit);
  let objects = state.sheets.get(ref);
  if (!objects)
    state.sheets.set(ref, (objects = { charts: [], tables: [], deleteCharts: [], deleteTables: [] }));
  return objects;
}

/**
 * Reads what the ops need to check before they run: every table name of the workbook, and the names of
 * the charts on each sheet's drawing.
 */
export async function loadObjectNames(pkg: WorkbookPackage, edit: WorkbookEdit): Promise<void> {
  const state = objectState(edit);
  for (const entry of pkg.archive.list()) {
    if (!isTablePart(pkg, entry.name)) continue;
    const xml = await pkg.archive.readText(entry.name);
    for (const key of ['name', 'displayName']) {
      const m = new RegExp(`<(?:\\w+:)?table\\b[^>]*\\s${key}="([^"]*)"`).exec(xml);
      if (m) state.tableNames.add(m[1]!.toUpperCase());
    }
  }
  for (const ref of edit.sheets) {
    if (!ref.entry?.part) continue;
    const drawing = await sheetDrawingPart(pkg, ref.entry.part);
    if (!drawing) continue;
    const xml = await readPartText(pkg.archive, drawing);
    state.chartNames.set(
      ref,
      chartFrames(xml).map((f) => f.name),
    );
  }
}

/**
 * Whether a chart whose frame is deleted goes with it: the part is a chart (a relationship may name any
 * part) that no other part, nor another frame of this drawing, uses.
 */
async function chartOnlyHere(
  pkg: WorkbookPackage,
  chartPart: string,
  drawingPart: string,
  drawingRels: Relationship[],
  removedIds: string[],
): Promise<boolean> {
  if (!pkg.has(chartPart) || pkg.contentTypeOf(chartPart) !== CONTENT_TYPES.chart) return false;
  const lower = chartPart.toLowerCase();
  if ([...(await sourcesOf(pkg, chartPart))].some((source) => source !== drawingPart.toLowerCase()))
    return false;
  return !drawingRels.some((r) => !removedIds.includes(r.id) && r.part?.toLowerCase() === lower);
}

/**
 * The sheet's drawing part, if it has one in the package. `forWriting`: the caller would add a drawing
 * when there is none, so a drawing relationship to a missing part is refused (the sheet would get two).
 */
async function sheetDrawingPart(
  pkg: WorkbookPackage,
  sheetPart: string,
  forWriting = false,
): Promise<string | undefined> {
  const relsPart = relsPartOf(sheetPart);
  if (!pkg.has(relsPart)) return undefined;
  const rels = parseRelationships(await readPartText(pkg.archive, relsPart), path.dirname(sheetPart));
  const drawings = rels.filter((r) => r.type.endsWith('/drawing'));
  const rel = drawings.find((r) => r.part && pkg.has(r.part));
  if (forWriting && !rel && drawings.length > 0)
    throw new ToolError(
      'CORRUPT_WORKBOOK',
      `The drawing relationship of "${sheetPart}" points at a part the package does not have (${drawings[0]!.target}).`,
      {
        hint: 'Open and re-save the workbook in Excel, or check where it came from.',
        details: { part: relsPart },
      },
    );
  return rel?.part;
}

/** The chart frames of a drawing: their anchor's text span, name and chart relationship id. */
function chartFrames(xml: string): { start: number; end: number; name: string; rId: string }[] {
  const frames: { start: number; end: number; name: string; rId: string }[] = [];
  const anchor = /<((?:\w+:)?)(twoCellAnchor|oneCellAnchor|absoluteAnchor)\b[\s\S]*?<\/\1\2>/g;
  for (const m of xml.matchAll(anchor)) {
    const text = m[0];
    const chart = /<(?:\w+:)?chart\b[^>]*\s(?:\w+:)?id="([^"]+)"/.exec(text);
    const name = /<(?:\w+:)?cNvPr\b[^>]*\sname="([^"]*)"/.exec(text);
    if (chart && name)
      frames.push({ start: m.index, end: m.index + text.length, name: unescape(name[1]!), rId: chart[1]! });
  }
  return frames;
}

function unescape(text: string): string {
  return text.replace(
    /&(lt|gt|quot|apos|amp);/g,
    (_, e: string) => ({ lt: '<', gt: '>', quot: '"', apos: "'", amp: '&' })[e]!,
  );
}

/** What the package writer lends the object writer. */
export interface PartIo {
  entryNames: Set<string>;
  added: { part: string; data: string }[];
  replaced: Map<string, string>;
  deleted: Set<string>;
  typeAdds: { part: string; type: string }[];
  typeRemoves: string[];
  /** The part of each sheet (new sheets' parts are chosen by the writer). */
  partOf(ref: SheetRef): string | undefined;
  conformance: Conformance;
}

function freshPart(io: PartIo, dir: string, stem: string): string {
  return freshPartName(io.entryNames, `${dir}/`, stem);
}

/** A relationship id neither in the relationships part (however its attributes are quoted) nor `taken`. */
function freshRelId(xml: string | undefined, taken: Set<string>): string {
  const inPart = new Set(parseRelationships(xml ?? EMPTY_RELS, '').map((r) => r.id));
  for (let n = 1; ; n++) {
    const id = `rId${n}`;
    if (!taken.has(id) && !inPart.has(id)) {
      taken.add(id);
      return id;
    }
  }
}

const EMPTY_RELS =
  '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"></Relationships>';

/** Writes the charts and tables the ops added (or the charts they removed) into the package. */
export async function writeObjectParts(pkg: WorkbookPackage, edit: WorkbookEdit, io: PartIo): Promise<void> {
  const state = states.get(edit);
  if (!state) return;
  const xlDir = path.dirname(pkg.workbookPart) === '.' ? 'xl' : path.dirname(pkg.workbookPart);
  let tableId = await maxTableId(pkg);
  for (const [ref, objects] of state.sheets) {
    if (!ref.edit || edit.removed.includes(ref)) continue;
    if (
      !objects.charts.length &&
      !objects.tables.length &&
      !objects.deleteCharts.length &&
      !objects.deleteTables.length
    )
      continue;
    const sheetPart = io.partOf(ref);
    if (!sheetPart) continue;
    const sheet = ref.edit;
    const sheetRelsPart = relsPartOf(sheetPart);
    const hasSheetRels = pkg.has(sheetRelsPart);
    const sheetRelsXml = hasSheetRels ? await readPartText(pkg.archive, sheetRelsPart) : EMPTY_RELS;
    const sheetRelAdds: { id: string; type: string; target: string }[] = [];
    const takenSheetIds = new Set<string>();
    const tailInserts: { element: string; xml: string }[] = [];

    if (objects.charts.length || objects.deleteCharts.length) {
      const existing = hasSheetRels ? await sheetDrawingPart(pkg, sheetPart, true) : undefined;
      let drawingPart = existing;
      let drawingXml: string;
      let drawingRelsXml: string;
      if (existing) {
        drawingXml = await readPartText(pkg.archive, existing); // well-formed, or CORRUPT_WORKBOOK naming it
        const relsPart = relsPartOf(existing);
        drawingRelsXml = pkg.has(relsPart) ? await readPartText(pkg.archive, relsPart) : EMPTY_RELS;
      } else {
        drawingPart = freshPart(io, `${xlDir}/drawings`, 'drawing');
        drawingXml = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<xdr:wsDr xmlns:xdr="${XDR}" xmlns:a="${A}"></xdr:wsDr>`;
        drawingRelsXml = EMPTY_RELS;
        const id = freshRelId(sheetRelsXml, takenSheetIds);
        sheetRelAdds.push({
          id,
          type: relType(io.conformance, 'drawing'),
          target: path.relative(path.dirname(sheetPart), drawingPart),
        });
        tailInserts.push({
          element: 'drawing',
          xml: `<${sheet.prefix}drawing ${relAttr(sheet, io.conformance.rel, id)}/>`,
        });
        io.typeAdds.push({ part: drawingPart, type: CONTENT_TYPES.drawing });
      }
      const drawingDir = path.dirname(drawingPart!);
      const relRemoves: string[] = [];
      const drawingRels = parseRelationships(drawingRelsXml, drawingDir);
      for (const name of objects.deleteCharts) {
        const frame = chartFrames(drawingXml).find((f) => f.name === name);
        if (!frame) continue;
        drawingXml = drawingXml.slice(0, frame.start) + drawingXml.slice(frame.end);
        relRemoves.push(frame.rId);
        const chartPart = drawingRels.find((r) => r.id === frame.rId)?.part;
        if (chartPart && (await chartOnlyHere(pkg, chartPart, drawingPart!, drawingRels, relRemoves))) {
          // The chart, its relationships and what only it used (its style and colours parts).
          for (const part of await exclusiveParts(pkg, [chartPart])) {
            io.deleted.add(part.toLowerCase());
            io.typeRemoves.push(part);
          }
        }
      }
      const relAdds: { id: string; type: string; target: string }[] = [];
      const takenIds = new Set<string>();
      let nextId = Math.max(
        0,
        ...[...drawingXml.matchAll(/<(?:\w+:)?cNvPr\b[^>]*\sid="(\d+)"/g)].map((m) => Number(m[1])),
      );
      let anchors = '';
      for (const chart of objects.charts) {
        const chartPart = freshPart(io, `${xlDir}/charts`, 'chart');
        // A later op of the patch may rename or delete a sheet the series read: their c:f follow it, as
        // the charts already in the package do (else they name a sheet that is not there).
        const later = {
          renames: edit.renames.slice(chart.renamesBefore),
          deletions: edit.deletions.slice(chart.deletionsBefore),
        };
        const xml =
          later.renames.length || later.deletions.length
            ? rewriteFormulaElements(chart.xml, later)
            : chart.xml;
        io.added.push({ part: chartPart, data: xml });
        io.typeAdds.push({ part: chartPart, type: CONTENT_TYPES.chart });
        const id = freshRelId(drawingRelsXml, takenIds);
        relAdds.push({
          id,
          type: relType(io.conformance, 'chart'),
          target: path.relative(drawingDir, chartPart),
        });
        anchors += chartAnchor(chart, ++nextId, id, io.conformance.rel);
      }
      // Into the root, also when a hand-edited drawing holds none (`<xdr:wsDr/>`).
      const root = findElement(drawingXml, 'wsDr');
      if (!root)
        throw new ToolError('CORRUPT_WORKBOOK', `The drawing part "${drawingPart}" has no <xdr:wsDr> root.`, {
          hint: 'Open and re-save the workbook in Excel, or check where it came from.',
          details: { part: drawingPart },
        });
      drawingXml = appendChildren(drawingXml, root, anchors);
      const newRels = rewriteRels(drawingRelsXml, relAdds, relRemoves, relsPartOf(drawingPart!));
      if (existing) {
        io.replaced.set(existing.toLowerCase(), drawingXml);
        const relsPart = relsPartOf(existing);
        if (pkg.has(relsPart)) io.replaced.set(relsPart.toLowerCase(), newRels);
        else io.added.push({ part: relsPart, data: newRels });
      } else {
        io.added.push({ part: drawingPart!, data: drawingXml });
        io.added.push({ part: relsPartOf(drawingPart!), data: newRels });
      }
    }

    if (objects.tables.length) {
      const ids: string[] = [];
      for (const table of objects.tables) {
        const tablePart = freshPart(io, `${xlDir}/tables`, 'table');
        io.added.push({ part: tablePart, data: table.xml(++tableId) });
        io.typeAdds.push({ part: tablePart, type: CONTENT_TYPES.table });
        const id = freshRelId(sheetRelsXml, takenSheetIds);
        sheetRelAdds.push({
          id,
          type: relType(io.conformance, 'table'),
          target: path.relative(path.dirname(sheetPart), tablePart),
        });
        ids.push(id);
      }
      addTableParts(sheet, ids, io.conformance.rel);
    }

    const sheetRelRemoves: string[] = [];
    if (objects.deleteTables.length && hasSheetRels) {
      const rels = parseRelationships(sheetRelsXml, path.dirname(sheetPart));
      for (const rel of rels) {
        if (!rel.type.endsWith('/table') || !rel.part || !pkg.has(rel.part)) continue;
        const m = /<(?:\w+:)?table\b[^>]*\sdisplayName="([^"]*)"/.exec(await pkg.archive.readText(rel.part));
        if (!m || !objects.deleteTables.some((n) => n.toUpperCase() === unescape(m[1]!).toUpperCase()))
          continue;
        sheetRelRemoves.push(rel.id);
        io.deleted.add(rel.part.toLowerCase());
        io.typeRemoves.push(rel.part);
      }
      if (sheetRelRemoves.length) removeTableParts(sheet, sheetRelRemoves);
    }

    if (sheetRelAdds.length || sheetRelRemoves.length) {
      const rels = rewriteRels(sheetRelsXml, sheetRelAdds, sheetRelRemoves, sheetRelsPart);
      if (hasSheetRels) io.replaced.set(sheetRelsPart.toLowerCase(), rels);
      else io.added.push({ part: sheetRelsPart, data: rels });
    }
    if (tailInserts.length) {
      const own = sheet.tailRewrite;
      sheet.tailRewrite = (tail) =>
        tailInserts.reduce((t, i) => insertInTail(t, i.element, i.xml, sheet.prefix), own ? own(tail) : tail);
    }
  }
}

/** A table part: typed as one, or where Excel puts them (a package may keep tables anywhere). */
function isTablePart(pkg: WorkbookPackage, part: string): boolean {
  return pkg.contentTypeOf(part) === CONTENT_TYPES.table || /(^|\/)tables\/[^/]+\.xml$/i.test(part);
}

async function maxTableId(pkg: WorkbookPackage): Promise<number> {
  let max = 0;
  for (const entry of pkg.archive.list()) {
    if (!isTablePart(pkg, entry.name)) continue;
    const m = /<(?:\w+:)?table\b[^>]*\sid="(\d+)"/.exec(await pkg.archive.readText(entry.name));
    if (m) max = Math.max(max, Number(m[1]));
  }
  return max;
}

/** Adds `<tablePart>`s to the sheet's `<tableParts>` (made when the sheet has none). */
function addTableParts(sheet: SheetEdit, ids: string[], relNs: string): void {
  const own = sheet.tailRewrite;
  sheet.tailRewrite = (tail) => {
    let t = own ? own(tail) : tail;
    const p = sheet.prefix;
    const parts = ids.map((id) => `<${p}tablePart ${relAttr(sheet, relNs, id)}/>`).join('');
    const existing = new RegExp(`<${p}tableParts\\b([^>]*?)(/?)>`).exec(t);
    if (!existing)
      return insertInTail(
        t,
        'tableParts',
        `<${p}tableParts count="${ids.length}">${parts}</${p}tableParts>`,
        p,
      );
    const count = Number(/count="(\d+)"/.exec(existing[1] ?? '')?.[1] ?? 0) + ids.length;
    const open = `<${p}tableParts count="${count}">`;
    if (existing[2] === '/') return t.replace(existing[0], `${open}${parts}</${p}tableParts>`);
    t = t.replace(existing[0], open);
    const close = t.indexOf(`</${p}tableParts>`);
    return t.slice(0, close) + parts + t.slice(close);
  };
}

/**
 * How an element of the sheet names the relationships namespace: with the prefix the worksheet already
 * declares for it, else with its own declaration.
 */
function relAttr(sheet: SheetEdit, relNs: string, id: string): string {
  const declared = new RegExp(`xmlns:(\\w+)="${relNs.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}"`).exec(
    sheet.head,
  );
  return declared ? `${declared[1]}:id="${id}"` : `xmlns:r="${relNs}" r:id="${id}"`;
}

/** Drops the sheet's `<tablePart>`s of these relationship ids (and `<tableParts>` when none is left). */
function removeTableParts(sheet: SheetEdit, ids: string[]): void {
  const own = sheet.tailRewrite;
  sheet.tailRewrite = (tail) => {
    let t = own ? own(tail) : tail;
    for (const id of ids) t = t.replace(new RegExp(`<(?:\\w+:)?tablePart\\b[^>]*\\bid="${id}"[^>]*/>`), '');
    const p = sheet.prefix;
    const left = (t.match(new RegExp(`<${p}tablePart\\b`, 'g')) ?? []).length;
    const block = new RegExp(`<${p}tableParts\\b[^>]*>([\\s\\S]*?)</${p}tableParts>`);
    return left === 0
      ? t.replace(block, '')
      : t.replace(new RegExp(`(<${p}tableParts\\b[^>]*count=")\\d+`), `$1${left}`);
  };
}

/** Elements that follow `<drawing>` / `<tableParts>` in a worksheet (ECMA-376 CT_Worksheet order). */
const AFTER: Record<string, string[]> = {
  drawing: [
    'legacyDrawing',
    'legacyDrawingHF',
    'drawingHF',
    'picture',
    'oleObjects',
    'controls',
    'webPublishItems',
    'tableParts',
    'extLst',
  ],
  tableParts: ['extLst'],
};

/** Inserts an element into the part of a worksheet after sheetData, where the schema orders it. */
export function insertInTail(tail: string, element: string, xml: string, prefix: string): string {
  let at = tail.lastIndexOf(`</${prefix}worksheet>`);
  for (const next of AFTER[element] ?? []) {
    const m = new RegExp(`<${prefix}${next}[\\s/>]`).exec(tail);
    if (m && m.index < at) at = m.index;
  }
  return tail.slice(0, at) + xml + tail.slice(at);
}

/** A chart's anchor: one cell, with the chart's size (as openpyxl writes charts). */
function chartAnchor(chart: NewChart, id: number, rId: string, relNs: string): string {
  return (
    `<xdr:oneCellAnchor xmlns:xdr="${XDR}" xmlns:a="${A}"><xdr:from><xdr:col>${chart.col}</xdr:col><xdr:colOff>0</xdr:colOff><xdr:row>${chart.row}</xdr:row><xdr:rowOff>0</xdr:rowOff></xdr:from>` +
    `<xdr:ext cx="${chart.cx}" cy="${chart.cy}"/>` +
    `<xdr:graphicFrame macro=""><xdr:nvGraphicFramePr><xdr:cNvPr id="${id}" name="${escapeXml(chart.name)}"/><xdr:cNvGraphicFramePr/></xdr:nvGraphicFramePr>` +
    `<xdr:xfrm><a:off x="0" y="0"/><a:ext cx="0" cy="0"/></xdr:xfrm><a:graphic><a:graphicData uri="${C}"><c:chart xmlns:c="${C}" xmlns:r="${relNs}" r:id="${rId}"/></a:graphicData></a:graphic></xdr:graphicFrame>` +
    `<xdr:clientData/></xdr:oneCellAnchor>`
  );
}

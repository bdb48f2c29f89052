// create_chart / delete_chart: a DrawingML chart part over cell ranges, placed on the sheet's drawing
// (parts written by parts/object-parts.ts). The inverse of create_chart is delete_chart.
import { colIndexToAlpha, parseRange, type CellRange } from '../../ooxml/cell-ref.js';
import { splitQualifiedRange } from '../../ooxml/qualified-range.js';
import { readsAsReference } from '../formula.js';
import { objectState, sheetObjects } from '../parts/object-parts.js';
import { PatchOpError } from '../types.js';
import { escapeXml } from '../xml.js';
import type { WorkbookEdit } from '../workbook-edit.js';
import { diffItem, sheetOf, type OpHandler } from './op-handler.js';

export const CHART_TYPES = ['line', 'column', 'bar', 'area', 'pie', 'doughnut', 'scatter', 'radar'] as const;
export type ChartType = (typeof CHART_TYPES)[number];

const EMU_PER_POINT = 12700;

/**
 * A sheet name as formulas quote it. Names Excel reads as a reference (`AB12`, and R1C1's `RC`, `R2C3`,
 * `C1x`) are quoted too: unquoted, Excel misreads the chart's c:f and repairs the drawing.
 */
function quoted(sheet: string): string {
  return /^[A-Za-z_][A-Za-z0-9_.]*$/.test(sheet) && !readsAsReference(sheet)
    ? sheet
    : `'${sheet.replace(/'/g, "''")}'`;
}

function absolute(sheet: string, r: CellRange): string {
  const a = `$${colIndexToAlpha(r.start.col)}$${r.start.row}`;
  const b = `$${colIndexToAlpha(r.end.col)}$${r.end.row}`;
  return `${quoted(sheet)}!${a === b ? a : `${a}:${b}`}`;
}

interface Series {
  name: string | undefined;
  categories: string | undefined;
  values: string;
}

/** Splits the data range into series (by columns, or by rows with series_from_rows). */
function seriesOf(
  sheet: string,
  data: CellRange,
  categories: string | undefined,
  titlesFromData: boolean,
  byRows: boolean,
  firstIsCategories: boolean,
): Series[] {
  const out: Series[] = [];
  const lines = byRows ? [data.start.row, data.end.row] : [data.start.col, data.end.col];
  let first = lines[0]!;
  let cats = categories;
  const along = byRows ? [data.start.col, data.end.col] : [data.start.row, data.end.row];
  const valueStart = along[0]! + (titlesFromData ? 1 : 0);
  if (valueStart > along[1]!)
    throw new PatchOpError(
      'data_range has no values below (or right of) its titles; make it larger or set titles_from_data=false.',
    );
  const span = (line: number, from: number, to: number): CellRange =>
    byRows
      ? { start: { row: line, col: from }, end: { row: line, col: to } }
      : { start: { row: from, col: line }, end: { row: to, col: line } };
  if (!cats && firstIsCategories && lines[1]! > lines[0]!) {
    cats = absolute(sheet, span(first, valueStart, along[1]!));
    first++;
  }
  for (let line = first; line <= lines[1]!; line++) {
    out.push({
      name: titlesFromData ? absolute(sheet, span(line, along[0]!, along[0]!)) : undefined,
      categories: cats,
      values: absolute(sheet, span(line, valueStart, along[1]!)),
    });
  }
  return out;
}

function richText(text: string): string {
  return `<c:tx><c:rich><a:bodyPr/><a:lstStyle/><a:p><a:r><a:t>${escapeXml(text)}</a:t></a:r></a:p></c:rich></c:tx>`;
}

function title(text: string | undefined): string {
  return text ? `<c:title>${richText(text)}<c:overlay val="0"/></c:title>` : '';
}

function seriesXml(type: ChartType, s: Series, i: number): string {
  const head = `<c:idx val="${i}"/><c:order val="${i}"/>${s.name ? `<c:tx><c:strRef><c:f>${escapeXml(s.name)}</c:f></c:strRef></c:tx>` : ''}`;
  const cat = s.categories ? `<c:cat><c:strRef><c:f>${escapeXml(s.categories)}</c:f></c:strRef></c:cat>` : '';
  const val = `<c:val><c:numRef><c:f>${escapeXml(s.values)}</c:f></c:numRef></c:val>`;
  switch (type) {
    case 'line':
      return `<c:ser>${head}<c:marker><c:symbol val="none"/></c:marker>${cat}${val}<c:smooth val="0"/></c:ser>`;
    case 'scatter': {
      const x = s.categories
        ? `<c:xVal><c:numRef><c:f>${escapeXml(s.categories)}</c:f></c:numRef></c:xVal>`
        : '';
      return `<c:ser>${head}<c:marker><c:symbol val="circle"/></c:marker>${x}<c:yVal><c:numRef><c:f>${escapeXml(s.values)}</c:f></c:numRef></c:yVal><c:smooth val="0"/></c:ser>`;
    }
    case 'radar':
      return `<c:ser>${head}<c:marker><c:symbol val="none"/></c:marker>${cat}${val}</c:ser>`;
    case 'column':
    case 'bar':
      return `<c:ser>${head}<c:invertIfNegative val="0"/>${cat}${val}</c:ser>`;
    default:
      return `<c:ser>${head}${cat}${val}</c:ser>`;
  }
}

function axes(type: ChartType, xTitle: string | undefined, yTitle: string | undefined): string {
  if (type === 'pie' || type === 'doughnut') return '';
  const horizontal = type === 'bar';
  const common = (id: number, pos: string) =>
    `<c:axId val="${id}"/><c:scaling><c:orientation val="minMax"/></c:scaling><c:delete val="0"/><c:axPos val="${pos}"/>`;
  const tail = (cross: number) =>
    `<c:numFmt formatCode="General" sourceLinked="1"/><c:majorTickMark val="out"/><c:minorTickMark val="none"/><c:tickLblPos val="nextTo"/><c:crossAx val="${cross}"/><c:crosses val="autoZero"/>`;
  if (type === 'scatter')
    return (
      `<c:valAx>${common(10, 'b')}${title(xTitle)}${tail(20)}<c:crossBetween val="midCat"/></c:valAx>` +
      `<c:valAx>${common(20, 'l')}<c:majorGridlines/>${title(yTitle)}${tail(10)}<c:crossBetween val="midCat"/></c:valAx>`
    );
  return (
    `<c:catAx>${common(10, horizontal ? 'l' : 'b')}${title(xTitle)}${tail(20)}<c:auto val="1"/><c:lblAlgn val="ctr"/><c:lblOffset val="100"/><c:noMultiLvlLbl val="0"/></c:catAx>` +
    `<c:valAx>${common(20, horizontal ? 'b' : 'l')}<c:majorGridlines/>${title(yTitle)}${tail(10)}<c:crossBetween val="between"/></c:valAx>`
  );
}

function plot(type: ChartType, series: string): string {
  const ax = '<c:axId val="10"/><c:axId val="20"/>';
  switch (type) {
    case 'column':
    case 'bar':
      return `<c:barChart><c:barDir val="${type === 'bar' ? 'bar' : 'col'}"/><c:grouping val="clustered"/><c:varyColors val="0"/>${series}<c:gapWidth val="150"/>${ax}</c:barChart>`;
    case 'line':
      return `<c:lineChart><c:grouping val="standard"/><c:varyColors val="0"/>${series}<c:marker val="1"/>${ax}</c:lineChart>`;
    case 'area':
      return `<c:areaChart><c:grouping val="standard"/><c:varyColors val="0"/>${series}${ax}</c:areaChart>`;
    case 'pie':
      return `<c:pieChart><c:varyColors val="1"/>${series}<c:firstSliceAng val="0"/></c:pieChart>`;
    case 'doughnut':
      return `<c:doughnutChart><c:varyColors val="1"/>${series}<c:firstSliceAng val="0"/><c:holeSize val="50"/></c:doughnutChart>`;
    case 'scatter':
      return `<c:scatterChart><c:scatterStyle val="lineMarker"/><c:varyColors val="0"/>${series}${ax}</c:scatterChart>`;
    case 'radar':
      return `<c:radarChart><c:radarStyle val="marker"/><c:varyColors val="0"/>${series}${ax}</c:radarChart>`;
  }
}

/** A chartSpace part: the plot, its axes (not for pie/doughnut), a title when given, a legend. */
export function chartXml(
  type: ChartType,
  series: Series[],
  titles: { title?: string | undefined; x?: string | undefined; y?: string | undefined },
): string {
  return (
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n' +
    '<c:chartSpace xmlns:c="http://schemas.openxmlformats.org/drawingml/2006/chart" xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships">' +
    '<c:roundedCorners val="0"/><c:chart>' +
    title(titles.title) +
    `<c:autoTitleDeleted val="${titles.title ? 0 : 1}"/><c:plotArea><c:layout/>` +
    plot(type, series.map((s, i) => seriesXml(type, s, i)).join('')) +
    axes(type, titles.x, titles.y) +
    '</c:plotArea><c:legend><c:legendPos val="r"/><c:overlay val="0"/></c:legend><c:plotVisOnly val="1"/><c:dispBlanksAs val="gap"/></c:chart></c:chartSpace>'
  );
}

/** Whether the first column (or row) of the data holds text below its title: then it names the categories. */
function firstLineIsText(
  edit: WorkbookEdit,
  sheetName: string,
  data: CellRange,
  byRows: boolean,
  titled: boolean,
): boolean {
  const sheet = edit.find(sheetName)?.edit;
  if (!sheet) return false;
  const cells: (string | number | boolean | null | undefined)[] = [];
  if (byRows)
    for (let c = data.start.col + (titled ? 1 : 0); c <= data.end.col; c++)
      cells.push(sheet.peek(data.start.row, c)?.value);
  else
    for (let r = data.start.row + (titled ? 1 : 0); r <= data.end.row; r++)
      cells.push(sheet.peek(r, data.start.col)?.value);
  const present = cells.filter((v) => v !== null && v !== undefined && v !== '');
  return present.length > 0 && present.every((v) => typeof v === 'string');
}

export const createChart: OpHandler<'create_chart'> = (op, ctx) => {
  const { name: sheetName } = sheetOf(ctx.edit, op.sheet);
  const ref = ctx.edit.find(sheetName)!;
  const data = splitQualifiedRange(op.data_range);
  const dataSheet = data.sheet ? (ctx.edit.find(data.sheet)?.name ?? data.sheet) : sheetName;
  if (data.sheet && !ctx.edit.find(data.sheet))
    throw new PatchOpError(`data_range names sheet "${data.sheet}", which does not exist.`);
  const dataRange = parseRange(data.range);
  let categories: string | undefined;
  if (op.category_range) {
    const c = splitQualifiedRange(op.category_range);
    if (c.sheet && !ctx.edit.find(c.sheet))
      throw new PatchOpError(`category_range names sheet "${c.sheet}", which does not exist.`);
    categories = absolute(c.sheet ? ctx.edit.find(c.sheet)!.name : sheetName, parseRange(c.range));
  }
  const byRows = op.series_from_rows;
  const firstIsCategories =
    !categories && firstLineIsText(ctx.edit, dataSheet, dataRange, byRows, op.titles_from_data);
  const series = seriesOf(dataSheet, dataRange, categories, op.titles_from_data, byRows, firstIsCategories);
  const state = objectState(ctx.edit);
  const objects = sheetObjects(ctx.edit, ref);
  const names = new Set(
    [...(state.chartNames.get(ref) ?? []), ...objects.charts.map((c) => c.name)].map((n) => n.toLowerCase()),
  );
  for (const gone of objects.deleteCharts) names.delete(gone.toLowerCase());
  let chartName = op.chart_name;
  if (chartName && names.has(chartName.toLowerCase()))
    throw new PatchOpError(
      `Sheet "${sheetName}" already has a chart named "${chartName}"; choose another chart_name.`,
    );
  if (!chartName) for (let n = 1; names.has((chartName = `Chart ${n}`).toLowerCase()); n++);
  const anchor = parseRange(op.anchor_cell).start;
  objects.charts.push({
    name: chartName,
    xml: chartXml(op.chart_type, series, { title: op.title, x: op.x_axis_title, y: op.y_axis_title }),
    col: anchor.col,
    row: anchor.row - 1,
    cx: Math.round(op.width * EMU_PER_POINT),
    cy: Math.round(op.height * EMU_PER_POINT),
    renamesBefore: ctx.edit.renames.length,
    deletionsBefore: ctx.edit.deletions.length,
  });
  ctx.edit.contentChanged = true;
  return {
    items: [
      diffItem(ctx, op, sheetName, op.anchor_cell, null, {
        kind: 'chart',
        value: `type=${op.chart_type};data=${op.data_range};anchor=${op.anchor_cell};name=${chartName};series=${series.length}`,
      }),
    ],
    inverse: [{ op: 'delete_chart', sheet: sheetName, chart_name: chartName }],
  };
};

export const deleteChart: OpHandler<'delete_chart'> = (op, ctx) => {
  const { name: sheetName } = sheetOf(ctx.edit, op.sheet);
  const ref = ctx.edit.find(sheetName)!;
  const objects = sheetObjects(ctx.edit, ref);
  const wanted = op.chart_name.toLowerCase();
  const added = objects.charts.findIndex((c) => c.name.toLowerCase() === wanted);
  if (added >= 0) objects.charts.splice(added, 1);
  else {
    const existing = (objectState(ctx.edit).chartNames.get(ref) ?? []).find(
      (n) => n.toLowerCase() === wanted,
    );
    if (!existing || objects.deleteCharts.includes(existing)) {
      // Nothing to delete (as when undoing a chart that a later op of that patch deleted): skipped.
      ctx.warnings.push(
        `Sheet "${sheetName}" has no chart named "${op.chart_name}"; delete_chart was skipped.`,
      );
      return { items: [diffItem(ctx, op, sheetName, null, null, null, 'skipped')], inverse: [] };
    }
    objects.deleteCharts.push(existing);
  }
  ctx.undoWarnings.push(
    `delete_chart "${op.chart_name}" cannot be undone by inverse ops (a deleted chart is not rebuilt).`,
  );
  return {
    items: [diffItem(ctx, op, sheetName, null, { kind: 'chart', value: op.chart_name }, null)],
    inverse: [],
  };
};

import { child, children, descendants, path, parseXmlTree, type XmlElement } from './xml.js';
import type { ZipArchive } from './zip-archive.js';

export interface ChartSeriesInfo {
  name: string;
  nameRange: string | undefined;
  xRange: string | undefined;
  yRange: string | undefined;
}

export interface ChartInfo {
  chartType: string;
  title: string | undefined;
  xAxisTitle: string | undefined;
  yAxisTitle: string | undefined;
  /** [min, max] when the value axis has explicit bounds. */
  yAxisRange: number[] | undefined;
  series: ChartSeriesInfo[];
}

/** Plot tags → the chart type names Excel's object model uses (as the original extractor emits them). */
const CHART_TYPES: Record<string, string> = {
  areaChart: 'Area',
  area3DChart: '3DArea',
  barChart: 'Column',
  bar3DChart: '3DColumn',
  bubbleChart: 'Bubble',
  doughnutChart: 'Doughnut',
  lineChart: 'Line',
  line3DChart: '3DLine',
  ofPieChart: 'OfPie',
  pieChart: 'Pie',
  pie3DChart: '3DPie',
  radarChart: 'Radar',
  scatterChart: 'Scatter',
  stockChart: 'Stock',
  surfaceChart: 'Surface',
  surface3DChart: '3DSurface',
};

/** Text of a title or axis title: rich text runs, or the cached value of a cell reference. */
function titleText(title: XmlElement | undefined): string | undefined {
  if (!title) return undefined;
  const tx = child(title, 'tx');
  const parts: string[] = [];
  for (const p of descendants(child(tx, 'rich'), 'p')) {
    parts.push(
      p.children
        .filter((run) => run.name === 'r' || run.name === 'fld')
        .map((run) => child(run, 't')?.text ?? '')
        .join(''),
    );
  }
  if (parts.length === 0) {
    const cached = descendants(child(tx, 'strRef'), 'v').map((v) => v.text);
    parts.push(...cached);
  }
  const text = parts.join('\n').trim();
  return text === '' ? undefined : text;
}

function formulaOf(series: XmlElement, ...names: string[][]): string | undefined {
  for (const names_ of names) {
    const f = path(series, ...names_, 'f');
    if (f && f.text.trim() !== '') return f.text.trim();
  }
  return undefined;
}

function seriesInfo(series: XmlElement): ChartSeriesInfo {
  const tx = child(series, 'tx');
  const nameRange = path(tx, 'strRef', 'f')?.text.trim() || undefined;
  const cachedName = descendants(path(tx, 'strRef', 'strCache'), 'v')[0]?.text;
  const literal = child(tx, 'v')?.text;
  return {
    name: cachedName ?? literal ?? nameRange ?? '',
    nameRange,
    xRange: formulaOf(
      series,
      ['xVal', 'numRef'],
      ['xVal', 'strRef'],
      ['cat', 'numRef'],
      ['cat', 'strRef'],
      ['cat', 'multiLvlStrRef'],
    ),
    yRange: formulaOf(series, ['yVal', 'numRef'], ['val', 'numRef'], ['yVal', 'strRef']),
  };
}

function isHorizontalAxis(axis: XmlElement): boolean {
  const pos = child(axis, 'axPos')?.attrs.val;
  if (pos) return pos === 'b' || pos === 't';
  return axis.name !== 'valAx';
}

/** Reads a chart part: type, title, axis titles, explicit value-axis bounds and every series' ranges. */
export async function readChartPart(zip: ZipArchive, part: string): Promise<ChartInfo> {
  const space = parseXmlTree(await zip.readText(part), part);
  const chart = child(space, 'chart');
  const plotArea = child(chart, 'plotArea');
  const plots = (plotArea?.children ?? []).filter((c) => c.name in CHART_TYPES);
  let chartType = 'Unknown';
  const first = plots[0];
  if (first) {
    chartType = CHART_TYPES[first.name]!;
    if (first.name === 'barChart' || first.name === 'bar3DChart') {
      const horizontal = child(first, 'barDir')?.attrs.val === 'bar';
      chartType = `${first.name === 'bar3DChart' ? '3D' : ''}${horizontal ? 'Bar' : 'Column'}`;
    }
  }
  // As the original: y is the value axis (the vertical one when a scatter chart has two), x the other.
  const axes = (plotArea?.children ?? []).filter((c) => /^(valAx|catAx|dateAx|serAx)$/.test(c.name));
  const valueAxes = axes.filter((a) => a.name === 'valAx');
  const yAxis =
    valueAxes.length > 1 ? (valueAxes.find((a) => !isHorizontalAxis(a)) ?? valueAxes[0]) : valueAxes[0];
  const xAxis = axes.find((a) => a !== yAxis && a.name !== 'serAx');
  let yAxisRange: number[] | undefined;
  const scaling = child(yAxis, 'scaling');
  const min = child(scaling, 'min')?.attrs.val;
  const max = child(scaling, 'max')?.attrs.val;
  if (min !== undefined && max !== undefined) yAxisRange = [Number(min), Number(max)];
  const xAxisTitle = xAxis ? titleText(child(xAxis, 'title')) : undefined;
  const yAxisTitle = yAxis ? titleText(child(yAxis, 'title')) : undefined;
  return {
    chartType,
    title: titleText(child(chart, 'title')),
    xAxisTitle,
    yAxisTitle,
    yAxisRange,
    series: plots.flatMap((plot) => children(plot, 'ser').map(seriesInfo)),
  };
}

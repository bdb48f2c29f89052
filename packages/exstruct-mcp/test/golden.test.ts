// Conformance with the original Python ExStruct: every fixture in test/fixtures (copied from
// ../shared/fixtures/exstruct, BSD-3 — see LICENSE.exstruct) is extracted and compared field by field
// with the original's golden JSON.
//
// Differences on purpose (each asserted below in its changed form, not skipped):
// - Dates: the goldens carry pandas timestamps ("2025-01-01 00:00:00"); we emit ISO 8601 ("2025-01-01",
//   with "T13:45:00" only when the time is not midnight).
// - book_name: the fixtures were renamed when copied ("basic__sample.xlsx"); the goldens name the
//   original file ("sample.xlsx").
// - Merged-cell order: the original lists merges in openpyxl's set order; we keep the sheet's order. The
//   items are compared as sets. The gantt golden is from an older version that wrote merged_cells as a
//   list of {r1, c1, r2, c2, v}; it is compared in that shape.
// - Merged values in rows: the en_form and ja_form goldens were written with the original's
//   include_merged_values_in_rows=False, the others with the default (True); each fixture is extracted
//   with the matching setting (our default is True too).
// - Connector direction: the goldens come from Excel COM, which reports the angle of the unsigned
//   width/height (so only E, NE, N appear, and a line drawn downwards is "N"). We report the compass
//   heading from the line's start to its end with flips applied and north up the sheet. So golden N means
//   our N or S, golden E our E or W, golden NE one of the four diagonals.
// - Positions: shapes are placed from the drawing's own transform (what the file says); COM recomputed
//   them from the anchors with its screen metrics. They agree within a few points; positions known only
//   from cell anchors (charts, SmartArt) depend on the default font's column width and are compared
//   within 15%.
// - Chart name and y_axis_range: COM reported "Chart 1" and its automatic axis range; we report the name
//   stored in the file ("グラフ 1") and the axis range only when the file fixes it.
// - Blank strings: the original drops cells whose value is an empty or whitespace-only string; we keep
//   them (an agent can then tell a cell holding "  " from an empty one). Ours are compared without them,
//   and each one left out is asserted to be such a string. They count for nothing in table detection.
// - SmartArt layout: COM gave the localised layout name ("基本の循環"); the file only stores the layout id,
//   so we report its last segment ("cycle2"). The node trees are identical.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { extractWorkbook } from '../src/extract/extract-workbook.js';
import type { AnyShape, Arrow, SheetData, WorkbookData } from '../src/extract/model.js';
import type { ExtractionMode } from '../src/extract/modes.js';
import { FIXTURES } from './extract-helpers.js';

interface Case {
  name: string;
  mode: ExtractionMode;
  mergedValuesInRows: boolean;
}

const CASES: Case[] = [
  { name: 'basic__sample', mode: 'standard', mergedValuesInRows: true },
  { name: 'en_form_sf425__sample', mode: 'standard', mergedValuesInRows: false },
  { name: 'flowchart__sample-shape-connector', mode: 'standard', mergedValuesInRows: true },
  { name: 'formula__formula', mode: 'verbose', mergedValuesInRows: true },
  { name: 'gantt_chart__en__sample', mode: 'verbose', mergedValuesInRows: true },
  { name: 'ja_general_form__ja_form', mode: 'standard', mergedValuesInRows: false },
  { name: 'smartart__sample_smartart', mode: 'standard', mergedValuesInRows: true },
];

/** Golden pandas timestamps → our ISO 8601. */
function isoDate(value: unknown): unknown {
  if (typeof value !== 'string') return value;
  const m = /^(\d{4}-\d{2}-\d{2}) (\d{2}:\d{2}:\d{2})$/.exec(value);
  if (!m) return value;
  return m[2] === '00:00:00' ? m[1] : `${m[1]}T${m[2]}`;
}

function cellMap(sheet: SheetData, normalise: (v: unknown) => unknown = (v) => v): Map<string, unknown> {
  const map = new Map<string, unknown>();
  for (const row of sheet.rows ?? []) {
    for (const [key, value] of Object.entries(row.c)) map.set(`${row.r}:${key}`, normalise(value));
  }
  return map;
}

function mergedItems(sheet: Record<string, unknown>): string[] {
  const merged = sheet.merged_cells as
    { items: unknown[][] } | Array<{ r1: number; c1: number; r2: number; c2: number; v: string }> | undefined;
  if (!merged) return [];
  const items = Array.isArray(merged) ? merged.map((m) => [m.r1, m.c1, m.r2, m.c2, m.v]) : merged.items;
  return items.map((item) => JSON.stringify(item)).sort();
}

const AXIS: Record<string, string[]> = {
  N: ['N', 'S'],
  E: ['E', 'W'],
  NE: ['NE', 'SE', 'SW', 'NW'],
};

function close(ours: number, golden: number, anchorOnly: boolean): boolean {
  const tolerance = anchorOnly ? Math.max(12, golden * 0.15) : 12;
  return Math.abs(ours - golden) <= tolerance;
}

function compareShapes(ours: AnyShape[], golden: Array<Record<string, unknown>>): void {
  expect(ours.map((s) => s.kind)).toEqual(golden.map((s) => s.kind));
  ours.forEach((shape, i) => {
    const want = golden[i]!;
    const label = `shape #${i} ${JSON.stringify(want)}`;
    expect(shape.id, label).toBe(want.id);
    expect(shape.text, label).toBe(want.text);
    expect(shape.type, label).toBe(want.type);
    expect(shape.rotation, label).toBe(want.rotation);
    const anchorOnly = shape.kind === 'smartart';
    expect(close(shape.l, want.l as number, anchorOnly), `${label} l=${shape.l}`).toBe(true);
    expect(close(shape.t, want.t as number, anchorOnly), `${label} t=${shape.t}`).toBe(true);
    if (shape.kind === 'arrow') {
      const arrow: Arrow = shape;
      expect(arrow.begin_id, label).toBe(want.begin_id);
      expect(arrow.end_id, label).toBe(want.end_id);
      expect(arrow.begin_arrow_style, label).toBe(want.begin_arrow_style);
      expect(arrow.end_arrow_style, label).toBe(want.end_arrow_style);
      expect(AXIS[want.direction as string], label).toContain(arrow.direction);
    }
    if (shape.kind === 'smartart') {
      expect(shape.nodes, label).toEqual(want.nodes);
      expect(shape.layout).toMatch(/^[A-Za-z0-9]+$/);
    }
  });
}

describe.each(CASES)('golden $name ($mode)', ({ name, mode, mergedValuesInRows }) => {
  it('matches the original extractor field by field', async () => {
    const golden = JSON.parse(await readFile(path.join(FIXTURES, `${name}.json`), 'utf8')) as WorkbookData;
    const extraction = await extractWorkbook(path.join(FIXTURES, `${name}.xlsx`), {
      mode,
      mergedValuesInRows,
    });
    const ours = extraction.workbook;
    expect(ours.book_name).toBe(`${name}.xlsx`);
    expect(Object.keys(ours.sheets)).toEqual(Object.keys(golden.sheets));

    for (const [sheetName, want] of Object.entries(golden.sheets)) {
      const got = ours.sheets[sheetName]!;
      const wantRaw = want as unknown as Record<string, unknown>;
      // Same fields present (empty ones omitted on both sides)…
      expect(Object.keys(got).sort(), sheetName).toEqual(Object.keys(want).sort());
      // …every cell value (dates in ISO form), blank strings aside…
      const gotCells = cellMap(got);
      const wantCells = cellMap(want, isoDate);
      for (const [key, value] of gotCells) {
        if (wantCells.has(key)) continue;
        expect(typeof value === 'string' && value.trim() === '', `${key}: ${JSON.stringify(value)}`).toBe(
          true,
        );
        gotCells.delete(key);
      }
      expect(Object.fromEntries(gotCells)).toEqual(Object.fromEntries(wantCells));
      // …merged ranges with their values, formulas, fills, tables and print areas…
      expect(mergedItems(got as unknown as Record<string, unknown>)).toEqual(mergedItems(wantRaw));
      expect(got.formulas_map).toEqual(want.formulas_map);
      expect(got.colors_map).toEqual(want.colors_map);
      expect(got.table_candidates).toEqual(want.table_candidates);
      expect(got.print_areas).toEqual(want.print_areas);
      // …shapes and connectors with their begin/end ids…
      compareShapes(got.shapes ?? [], (wantRaw.shapes as Array<Record<string, unknown>>) ?? []);
      // …and chart series.
      const charts = got.charts ?? [];
      const wantCharts = (wantRaw.charts as Array<Record<string, unknown>>) ?? [];
      expect(charts.length).toBe(wantCharts.length);
      charts.forEach((chart, i) => {
        const wantChart = wantCharts[i]!;
        expect(chart.chart_type).toBe(wantChart.chart_type);
        expect(chart.title).toBe(wantChart.title);
        expect(chart.series).toEqual(wantChart.series);
        expect(close(chart.l, wantChart.l as number, true), `chart l=${chart.l}`).toBe(true);
        expect(close(chart.t, wantChart.t as number, true), `chart t=${chart.t}`).toBe(true);
      });
    }
  });
});

describe('fixtures without a golden', () => {
  it('reads the print-ranges form with its 172 merged ranges', async () => {
    const { workbook } = await extractWorkbook(
      path.join(FIXTURES, 'assets__multiple_print_ranges_4sheets.xlsx'),
    );
    const sheet = workbook.sheets.Sheet1!;
    expect(sheet.merged_cells?.items).toHaveLength(172);
    expect(sheet.rows?.[0]).toEqual({ r: 1, c: { '18': '【保育施設申請用】' } });
    expect(sheet.rows?.find((r) => r.r === 3)?.c['1']).toBe('診　断　書');
  });

  it('refuses the legacy .xls fixture with UNSUPPORTED_FORMAT', async () => {
    await expect(extractWorkbook(path.join(FIXTURES, 'assets__sample.xls'))).rejects.toMatchObject({
      code: 'UNSUPPORTED_FORMAT',
      message: expect.stringContaining('.xls'),
    });
  });
});

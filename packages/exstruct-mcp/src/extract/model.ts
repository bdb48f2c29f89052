import type { CellValue } from './cell-value.js';

/**
 * The ExStruct output model, field for field as the original Python ExStruct writes it. Empty fields
 * are left out of the serialised output. Rows are 1-based, column keys 0-based strings ("0", "12")
 * unless `alpha_col` is on ("A", "M").
 */
export interface WorkbookData {
  book_name: string;
  sheets: Record<string, SheetData>;
}

export interface CellRow {
  /** 1-based row number. */
  r: number;
  /** Column key → value. */
  c: Record<string, CellValue>;
  /** Column key → hyperlink target (verbose mode). */
  links?: Record<string, string>;
}

export interface PrintArea {
  /** 1-based first row. */
  r1: number;
  /** 0-based first column. */
  c1: number;
  r2: number;
  c2: number;
}

/** `{ schema: ["r1","c1","r2","c2","v"], items: [[r1, c1, r2, c2, value], …] }` — rows 1-based, columns 0-based. */
export interface MergedCells {
  schema: ['r1', 'c1', 'r2', 'c2', 'v'];
  items: Array<[number, number, number, number, string]>;
}

export type ArrowDirection = 'E' | 'SE' | 'S' | 'SW' | 'W' | 'NW' | 'N' | 'NE';

interface ShapeBase {
  /** Sequential id within the sheet (connectors refer to it by begin_id/end_id). */
  id?: number;
  text?: string;
  /** Position and size in points from the sheet's top-left corner. */
  l: number;
  t: number;
  w?: number;
  h?: number;
  /** `AutoShape-Rectangle`, `TextBox-Rectangle`, `Picture`, … */
  type?: string;
  /** Rotation in degrees (clockwise), when not 0. */
  rotation?: number;
}

export interface Shape extends ShapeBase {
  kind: 'shape';
  /** The object's name; given for pictures. */
  name?: string;
}

export interface Arrow extends ShapeBase {
  kind: 'arrow';
  /** Office MsoArrowheadStyle: 1 none, 2 triangle, 3 open, 4 stealth, 5 diamond, 6 oval. */
  begin_arrow_style?: number;
  end_arrow_style?: number;
  /** Ids of the shapes the connector is glued to (from the drawing's stCxn/endCxn). */
  begin_id?: number;
  end_id?: number;
  /** Compass heading from the start to the end of the line (N = up the sheet). */
  direction?: ArrowDirection;
}

export interface SmartArtNode {
  text: string;
  kids?: SmartArtNode[];
}

export interface SmartArt extends ShapeBase {
  kind: 'smartart';
  layout: string;
  nodes: SmartArtNode[];
}

export type AnyShape = Shape | Arrow | SmartArt;

export interface ChartSeries {
  name: string;
  name_range?: string;
  x_range?: string;
  y_range?: string;
}

export interface Chart {
  name: string;
  chart_type: string;
  title?: string;
  x_axis_title?: string;
  y_axis_title?: string;
  /** [min, max] when the value axis has explicit bounds. */
  y_axis_range?: number[];
  series: ChartSeries[];
  l: number;
  t: number;
  w?: number;
  h?: number;
}

export interface CellComment {
  /** A1 address of the commented cell. */
  cell: string;
  author?: string;
  text: string;
}

export interface SheetData {
  rows?: CellRow[];
  shapes?: AnyShape[];
  charts?: Chart[];
  table_candidates?: string[];
  print_areas?: PrintArea[];
  auto_print_areas?: PrintArea[];
  /** Cell comments and notes (an addition to the original model). */
  comments?: CellComment[];
  /** `"=SUM(A1:A3)"` → [[row, col], …] (row 1-based, col 0-based). */
  formulas_map?: Record<string, Array<[number, number]>>;
  /** `"BDD7EE"` → [[row, col], …] of cells with that fill. */
  colors_map?: Record<string, Array<[number, number]>>;
  merged_cells?: MergedCells;
  /** `["A1:C3", …]`, instead of merged_cells when alpha_col is on. */
  merged_ranges?: string[];
}

export const MERGED_SCHEMA: MergedCells['schema'] = ['r1', 'c1', 'r2', 'c2', 'v'];

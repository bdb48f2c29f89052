/** How much an extraction reads. The README and docs/mcp.md describe the same table. */
export const EXTRACTION_MODES = ['light', 'standard', 'verbose'] as const;
export type ExtractionMode = (typeof EXTRACTION_MODES)[number];

export interface ModeFeatures {
  /** merged_cells (or merged_ranges with alpha_col). */
  mergedCells: boolean;
  /** Shapes with text, connectors, SmartArt, pictures with alt text; charts; comments. */
  drawings: boolean;
  /** Also shapes without text and pictures without alt text. */
  allShapes: boolean;
  /** w/h on shapes and charts. */
  sizes: boolean;
  /** rows[].links */
  hyperlinks: boolean;
  formulasMap: boolean;
  colorsMap: boolean;
}

const FEATURES: Record<ExtractionMode, ModeFeatures> = {
  light: {
    mergedCells: false,
    drawings: false,
    allShapes: false,
    sizes: false,
    hyperlinks: false,
    formulasMap: false,
    colorsMap: false,
  },
  standard: {
    mergedCells: true,
    drawings: true,
    allShapes: false,
    sizes: false,
    hyperlinks: false,
    formulasMap: false,
    colorsMap: false,
  },
  verbose: {
    mergedCells: true,
    drawings: true,
    allShapes: true,
    sizes: true,
    hyperlinks: true,
    formulasMap: true,
    colorsMap: true,
  },
};

export function modeFeatures(mode: ExtractionMode): ModeFeatures {
  return FEATURES[mode];
}

/** One line per mode, for tool descriptions and errors. */
export const MODE_SUMMARY: Record<ExtractionMode, string> = {
  light: 'cell values, table candidates, print areas (fastest; no drawings, no merged cells)',
  standard:
    'light + merged cells, shapes with text, connectors (begin/end ids), SmartArt, charts, comments (recommended)',
  verbose: 'standard + every shape with w/h, chart sizes, hyperlinks, formulas_map, colors_map',
};

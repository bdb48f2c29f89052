// The op names exstruct_patch's description lists, without the ops' schemas: the server loads those
// (and the edit engine) when an edit tool is first called, not at start (issue 26 §1, memory).
// test/lazy-tool-modules.test.ts checks this list against the catalogue's.

/** listedOpNames() of patch/catalogue.ts (restore_design_snapshot is not offered), in its order. */
export const LISTED_OP_NAMES: readonly string[] = [
  'set_value',
  'set_formula',
  'add_sheet',
  'set_range_values',
  'fill_formula',
  'set_value_if',
  'set_formula_if',
  'set_bold',
  'set_font_size',
  'set_font_color',
  'set_fill_color',
  'set_alignment',
  'set_style',
  'draw_grid_border',
  'set_dimensions',
  'merge_cells',
  'unmerge_cells',
  'rename_sheet',
  'delete_sheet',
  'auto_fit_columns',
  'apply_table_style',
  'create_chart',
  'delete_chart',
  'delete_table',
];

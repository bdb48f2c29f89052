/**
 * Excel's rules for a sheet name: why it cannot be one, or undefined when it can. One place, so that
 * add_sheet, rename_sheet and exstruct_make's first sheet refuse the same names.
 */
export function sheetNameProblem(name: string): string | undefined {
  if (name.trim() === '') return 'A sheet name must not be empty or blank.';
  if (name.length > 31) return `Sheet name "${name}" is longer than 31 characters (Excel's limit).`;
  if (SHEET_NAME_FORBIDDEN.test(name))
    return `Sheet name "${name}" contains one of : \\ / ? * [ ] which Excel does not allow.`;
  if (name.startsWith("'") || name.endsWith("'"))
    return `Sheet name "${name}" may not start or end with an apostrophe.`;
  // The name is written into formulas and XML attributes, which cannot carry control characters.
  // eslint-disable-next-line no-control-regex
  const control = /[\u0000-\u001F\u007F\uFFFE\uFFFF]/.exec(name);
  if (control)
    return `Sheet name ${JSON.stringify(name)} contains the control character U+${control[0].charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}; Excel sheet names cannot hold one.`;
  if (name.toLowerCase() === 'history') return '"History" is reserved by Excel; choose another sheet name.';
  return undefined;
}

const SHEET_NAME_FORBIDDEN = /[:\\/?*[\]]/;

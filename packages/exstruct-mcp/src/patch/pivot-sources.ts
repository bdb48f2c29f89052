import type { SheetChanges } from './formula.js';
import { decodeXmlText, escapeXmlAttr } from './xml.js';

const WORKSHEET_SOURCE = /<((?:\w+:)?worksheetSource)\b([^>]*?)(\/?>)/g;
const SHEET_ATTR = /(\ssheet\s*=\s*)(["'])(.*?)\2/;

/**
 * Follows renamed sheets in a pivot cache definition's source (`<worksheetSource sheet="Data">`), as
 * Excel does; returns the names of deleted sheets a pivot still reads from (its refresh will fail).
 */
export function rewritePivotSources(
  xml: string,
  changes: SheetChanges,
): { xml: string; lostSources: string[] } {
  const lostSources: string[] = [];
  const next = xml.replace(WORKSHEET_SOURCE, (whole, tag: string, attrs: string, end: string) => {
    const match = SHEET_ATTR.exec(attrs);
    if (!match) return whole;
    let sheet = decodeXmlText(match[3]!, false);
    for (const { from, to } of changes.renames) if (sheet.toLowerCase() === from.toLowerCase()) sheet = to;
    if (changes.deletions.some((d) => d.name.toLowerCase() === sheet.toLowerCase())) lostSources.push(sheet);
    const written = `${match[1]}${match[2]}${escapeXmlAttr(sheet)}${match[2]}`;
    return written === match[0] ? whole : `<${tag}${attrs.replace(SHEET_ATTR, written)}${end}`;
  });
  return { xml: next, lostSources };
}

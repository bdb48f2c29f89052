import { ToolError } from '@mcp-workbench/core/engine';
import { isMainNs } from './namespaces.js';
import { findRel, isRelType, readRelationships, type Relationship } from './relationships.js';
import { attr, parseXmlText } from './xml.js';
import type { ZipArchive } from './zip-archive.js';

export type SheetKind = 'worksheet' | 'chartsheet' | 'dialogsheet' | 'macrosheet';

export interface SheetEntry {
  name: string;
  sheetId: number;
  /** `visible` | `hidden` | `veryHidden`. */
  state: string;
  kind: SheetKind;
  /** The sheet's part, e.g. `xl/worksheets/sheet1.xml` (undefined when the relationship is missing). */
  part: string | undefined;
}

export interface DefinedName {
  name: string;
  /** 0-based index into the sheets list when the name is local to a sheet. */
  localSheetId: number | undefined;
  hidden: boolean;
  formula: string;
}

export interface WorkbookPart {
  /** Usually `xl/workbook.xml`. */
  part: string;
  sheets: SheetEntry[];
  definedNames: DefinedName[];
  /** True when dates count from 1904-01-01 (old Mac workbooks). */
  date1904: boolean;
  /** The workbook's relationships (styles, sharedStrings, theme, sheets, …). */
  rels: Map<string, Relationship>;
}

const SHEET_KINDS: SheetKind[] = ['worksheet', 'chartsheet', 'dialogsheet', 'macrosheet'];

/** Finds the main workbook part through the package relationships (falls back to `xl/workbook.xml`). */
async function findWorkbookPart(zip: ZipArchive): Promise<string> {
  const packageRels = await readRelationships(zip, '');
  const office = findRel(packageRels, 'officeDocument');
  if (office && zip.has(office.target)) return office.target;
  if (zip.has('xl/workbook.xml')) return 'xl/workbook.xml';
  throw new ToolError('CORRUPT_WORKBOOK', 'The zip package has no workbook part (xl/workbook.xml).', {
    hint: 'This zip is not an Excel workbook (is it a .docx or .pptx?), or the workbook is damaged.',
  });
}

/** Reads workbook.xml: sheet list with their parts, defined names (print areas), the 1904 flag. */
export async function readWorkbookPart(zip: ZipArchive): Promise<WorkbookPart> {
  const part = await findWorkbookPart(zip);
  const rels = await readRelationships(zip, part);
  const sheets: SheetEntry[] = [];
  const definedNames: DefinedName[] = [];
  let date1904 = false;
  let currentName: DefinedName | undefined;
  parseXmlText(await zip.readText(part), part, {
    open(name, attrs, tag) {
      // Only SpreadsheetML's own elements: Excel 2013+ writes <x15:workbookPr> (no date1904) in extLst
      // after the real one, which must not reset the 1904 flag.
      if (tag.ns !== '' && !isMainNs(tag.ns)) return;
      if (name === 'sheet') {
        const rel = rels.get(attr(attrs, 'id') ?? '');
        const kind = (rel && SHEET_KINDS.find((k) => isRelType(rel, k))) ?? 'worksheet';
        sheets.push({
          name: attrs.name ?? `Sheet${sheets.length + 1}`,
          sheetId: Number(attrs.sheetId ?? sheets.length + 1),
          state: attrs.state ?? 'visible',
          kind,
          part: rel && !rel.external ? rel.target : undefined,
        });
      } else if (name === 'workbookPr') {
        date1904 = attrs.date1904 === '1' || attrs.date1904 === 'true';
      } else if (name === 'definedName') {
        currentName = {
          name: attrs.name ?? '',
          localSheetId: attrs.localSheetId === undefined ? undefined : Number(attrs.localSheetId),
          hidden: attrs.hidden === '1' || attrs.hidden === 'true',
          formula: '',
        };
      }
    },
    text(text) {
      if (currentName) currentName.formula += text;
    },
    close(name, ns) {
      if (ns !== '' && !isMainNs(ns)) return;
      if (name === 'definedName' && currentName) {
        definedNames.push(currentName);
        currentName = undefined;
      }
    },
  });
  return { part, sheets, definedNames, date1904, rels };
}

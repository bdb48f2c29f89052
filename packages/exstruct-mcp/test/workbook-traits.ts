// Workbooks with one producer's trait each, made from a small workbook by rewriting its XML: how
// openpyxl, the OpenXML SDK, ClosedXML, LibreOffice, ExcelJS or a Strict-conformance writer spell
// the same package.
import { writeFile } from 'node:fs/promises';
import { ZipArchive } from '../src/ooxml/zip-archive.js';
import { zipBytes } from './extract-helpers.js';

export type PartEdits = Record<string, (xml: string) => string>;

/** Copies a package, rewriting the named parts (and adding parts given as `add`). */
export async function mutateWorkbook(
  source: string,
  target: string,
  edits: PartEdits,
  add: Record<string, string> = {},
): Promise<void> {
  const zip = await ZipArchive.open(source);
  const entries: Record<string, string | Buffer> = {};
  try {
    for (const { name } of zip.list()) {
      const edit = edits[name];
      entries[name] = edit ? edit(await zip.readText(name)) : await zip.readBuffer(name);
    }
  } finally {
    zip.close();
  }
  await writeFile(target, zipBytes({ ...entries, ...add }));
}

export const REL_NS = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';
export const MAIN_NS = 'http://schemas.openxmlformats.org/spreadsheetml/2006/main';

/** openpyxl: the relationships namespace declared on each `<sheet>`, not on the root. */
export function relsOnEachSheet(prefix = 'r'): (xml: string) => string {
  return (xml) =>
    xml
      .replace(` xmlns:r="${REL_NS}"`, '')
      .replace(/<sheet ([^>]*?)r:id=/g, `<sheet xmlns:${prefix}="${REL_NS}" $1${prefix}:id=`);
}

/** The OpenXML SDK: SpreadsheetML behind an `x:` prefix. */
export function mainPrefixed(xml: string): string {
  return xml
    .replace(` xmlns="${MAIN_NS}"`, ` xmlns:x="${MAIN_NS}"`)
    .replace(/<(\/?)(?![?!])(?![\w]+:)([A-Za-z]\w*)([\s>/])/g, '<$1x:$2$3');
}

/** Strict conformance: the purl.oclc.org vocabularies in every part. */
export function toStrict(xml: string): string {
  return xml
    .replaceAll(MAIN_NS, 'http://purl.oclc.org/ooxml/spreadsheetml/main')
    .replaceAll(REL_NS, 'http://purl.oclc.org/ooxml/officeDocument/relationships')
    .replaceAll('http://schemas.openxmlformats.org/drawingml/2006/', 'http://purl.oclc.org/ooxml/drawingml/');
}

import { mkdtemp, open, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { escapeXmlAttr } from './xml.js';
import { NEW_SHEET_HEAD, NEW_SHEET_TAIL } from './sheet-edit.js';
import { DEFAULT_STYLES_XML } from './styles.js';
import { ZipWriter } from './zip-writer.js';

const XML = '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n';
const MAIN = 'http://schemas.openxmlformats.org/spreadsheetml/2006/main';
const R = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';

/** The parts of an empty workbook with one sheet, as Excel would write them. */
export function emptyWorkbookParts(sheetName: string, macroEnabled: boolean): [string, string][] {
  const mainType = macroEnabled
    ? 'application/vnd.ms-excel.sheet.macroEnabled.main+xml'
    : 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml';
  return [
    [
      '[Content_Types].xml',
      `${XML}<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">` +
        '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>' +
        '<Default Extension="xml" ContentType="application/xml"/>' +
        `<Override PartName="/xl/workbook.xml" ContentType="${mainType}"/>` +
        '<Override PartName="/xl/worksheets/sheet1.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/>' +
        '<Override PartName="/xl/styles.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.styles+xml"/>' +
        '<Override PartName="/docProps/core.xml" ContentType="application/vnd.openxmlformats-package.core-properties+xml"/>' +
        '<Override PartName="/docProps/app.xml" ContentType="application/vnd.openxmlformats-officedocument.extended-properties+xml"/>' +
        '</Types>',
    ],
    [
      '_rels/.rels',
      `${XML}<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">` +
        `<Relationship Id="rId1" Type="${R}/officeDocument" Target="xl/workbook.xml"/>` +
        '<Relationship Id="rId2" Type="http://schemas.openxmlformats.org/package/2006/relationships/metadata/core-properties" Target="docProps/core.xml"/>' +
        `<Relationship Id="rId3" Type="${R}/extended-properties" Target="docProps/app.xml"/>` +
        '</Relationships>',
    ],
    [
      'docProps/core.xml',
      `${XML}<cp:coreProperties xmlns:cp="http://schemas.openxmlformats.org/package/2006/metadata/core-properties" ` +
        'xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:dcterms="http://purl.org/dc/terms/" ' +
        'xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">' +
        `<dc:creator>exstruct-mcp</dc:creator><dcterms:created xsi:type="dcterms:W3CDTF">${new Date().toISOString().replace(/\.\d+Z$/, 'Z')}</dcterms:created>` +
        '</cp:coreProperties>',
    ],
    [
      'docProps/app.xml',
      `${XML}<Properties xmlns="http://schemas.openxmlformats.org/officeDocument/2006/extended-properties"><Application>Microsoft Excel</Application></Properties>`,
    ],
    [
      'xl/workbook.xml',
      `${XML}<workbook xmlns="${MAIN}" xmlns:r="${R}"><workbookPr/><bookViews><workbookView activeTab="0"/></bookViews>` +
        `<sheets><sheet name="${escapeXmlAttr(sheetName)}" sheetId="1" r:id="rId1"/></sheets><calcPr calcId="191029"/></workbook>`,
    ],
    [
      'xl/_rels/workbook.xml.rels',
      `${XML}<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">` +
        `<Relationship Id="rId1" Type="${R}/worksheet" Target="worksheets/sheet1.xml"/>` +
        `<Relationship Id="rId2" Type="${R}/styles" Target="styles.xml"/>` +
        '</Relationships>',
    ],
    [
      'xl/worksheets/sheet1.xml',
      `${NEW_SHEET_HEAD.replace('<sheetView workbookViewId="0"/>', '<sheetView tabSelected="1" workbookViewId="0"/>')}${NEW_SHEET_TAIL}`,
    ],
    ['xl/styles.xml', DEFAULT_STYLES_XML],
  ];
}

/** Writes an empty workbook to a private temp folder; `dispose` removes it. */
export async function createSeedWorkbook(
  sheetName: string,
  extension: '.xlsx' | '.xlsm',
): Promise<{ file: string; dispose: () => Promise<void> }> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'exstruct-make-'));
  const file = path.join(dir, `seed${extension}`);
  const handle = await open(file, 'wx');
  try {
    const zip = new ZipWriter(handle);
    for (const [name, text] of emptyWorkbookParts(sheetName, extension === '.xlsm'))
      await zip.addDeflated(name, text);
    await zip.finish();
  } finally {
    await handle.close();
  }
  return { file, dispose: () => rm(dir, { recursive: true, force: true }) };
}

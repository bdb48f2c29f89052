// Shared set-up for the extraction tests: hand-made OOXML packages (to control every part the engine
// reads), workbooks built with exceljs, and a server wired to a real MCP client.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import zlib from 'node:zlib';
import { PathPolicy, silentLogger } from '@mcp-workbench/core';
import { callTool, connectInMemory, type TestClient } from '@mcp-workbench/core/testing';
import type { OnConflict } from '../src/output/on-conflict.js';
import { createServer } from '../src/server.js';

export const FIXTURES = path.join(path.dirname(fileURLToPath(import.meta.url)), 'fixtures');

/** A zip file from named entries (deflated unless `store`). Enough of PKZIP for OOXML packages. */
export function zipBytes(
  /** Named entries; as a list, the same name may come twice (a hostile package). */
  entries: Record<string, string | Buffer> | Array<[string, string | Buffer]>,
  options: { store?: boolean } = {},
): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const [name, content] of Array.isArray(entries) ? entries : Object.entries(entries)) {
    const data = Buffer.isBuffer(content) ? content : Buffer.from(content, 'utf8');
    const packed = options.store ? data : zlib.deflateRawSync(data);
    const method = options.store ? 0 : 8;
    const crc = zlib.crc32(data);
    const nameBytes = Buffer.from(name, 'utf8');
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(0x0800, 6); // UTF-8 names
    local.writeUInt16LE(method, 8);
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(packed.length, 18);
    local.writeUInt32LE(data.length, 22);
    local.writeUInt16LE(nameBytes.length, 26);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(0x0800, 8);
    central.writeUInt16LE(method, 10);
    central.writeUInt32LE(crc, 16);
    central.writeUInt32LE(packed.length, 20);
    central.writeUInt32LE(data.length, 24);
    central.writeUInt16LE(nameBytes.length, 28);
    central.writeUInt32LE(offset, 42);
    locals.push(local, nameBytes, packed);
    centrals.push(central, nameBytes);
    offset += local.length + nameBytes.length + packed.length;
  }
  const directory = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(centrals.length / 2, 8);
  end.writeUInt16LE(centrals.length / 2, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, directory, end]);
}

const NS =
  'xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"';
const REL = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';

export interface SheetSpec {
  name: string;
  /** Everything inside <worksheet> (sheetData, mergeCells, drawing, …). */
  body: string;
  /** Extra relationships of the sheet: [id, type (short, e.g. "drawing"), target]. */
  rels?: Array<[string, string, string] | [string, string, string, 'External']>;
}

export interface PackageSpec {
  sheets: SheetSpec[];
  sharedStrings?: string[] | string;
  /** Raw <styleSheet> inner XML (default: one plain cell format). */
  styles?: string;
  /** Raw <definedNames> inner XML. */
  definedNames?: string;
  date1904?: boolean;
  /** More parts (drawings, charts, comments, tables, …) by part name. */
  parts?: Record<string, string>;
}

function escapeXml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** styles.xml cells: 0 plain, 1 a date (numFmt 14), 2 a thin border on every side, 3 a time (`h:mm`). */
export const DATE_TIME_BORDER_STYLES =
  '<numFmts count="1"><numFmt numFmtId="164" formatCode="h:mm"/></numFmts>' +
  '<fonts count="1"><font/></fonts><fills count="2"><fill><patternFill patternType="none"/></fill><fill><patternFill patternType="gray125"/></fill></fills>' +
  '<borders count="2"><border/><border><left style="thin"/><right style="thin"/><top style="thin"/><bottom style="thin"/></border></borders>' +
  '<cellXfs count="4"><xf numFmtId="0" fontId="0" fillId="0" borderId="0"/><xf numFmtId="14" fontId="0" fillId="0" borderId="0" applyNumberFormat="1"/>' +
  '<xf numFmtId="0" fontId="0" fillId="0" borderId="1" applyBorder="1"/><xf numFmtId="164" fontId="0" fillId="0" borderId="0" applyNumberFormat="1"/></cellXfs>';

/** Builds the parts of a minimal SpreadsheetML package around the given sheets. */
export function packageParts(spec: PackageSpec): Record<string, string> {
  const parts: Record<string, string> = {
    '[Content_Types].xml':
      '<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">' +
      '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>' +
      '<Default Extension="xml" ContentType="application/xml"/></Types>',
    '_rels/.rels': `<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="${REL}/officeDocument" Target="xl/workbook.xml"/></Relationships>`,
  };
  const workbookRels = [`<Relationship Id="rStyles" Type="${REL}/styles" Target="styles.xml"/>`];
  const sheetEntries: string[] = [];
  spec.sheets.forEach((sheet, i) => {
    const n = i + 1;
    sheetEntries.push(`<sheet name="${escapeXml(sheet.name)}" sheetId="${n}" r:id="rSheet${n}"/>`);
    workbookRels.push(
      `<Relationship Id="rSheet${n}" Type="${REL}/worksheet" Target="worksheets/sheet${n}.xml"/>`,
    );
    parts[`xl/worksheets/sheet${n}.xml`] =
      `<?xml version="1.0" encoding="UTF-8"?><worksheet ${NS}>${sheet.body}</worksheet>`;
    if (sheet.rels?.length) {
      parts[`xl/worksheets/_rels/sheet${n}.xml.rels`] =
        '<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">' +
        sheet.rels
          .map(
            ([id, type, target, mode]) =>
              `<Relationship Id="${id}" Type="${REL}/${type}" Target="${escapeXml(target)}"${mode ? ` TargetMode="${mode}"` : ''}/>`,
          )
          .join('') +
        '</Relationships>';
    }
  });
  if (spec.sharedStrings !== undefined) {
    workbookRels.push(`<Relationship Id="rStrings" Type="${REL}/sharedStrings" Target="sharedStrings.xml"/>`);
    const items =
      typeof spec.sharedStrings === 'string'
        ? spec.sharedStrings
        : spec.sharedStrings.map((s) => `<si><t xml:space="preserve">${escapeXml(s)}</t></si>`).join('');
    parts['xl/sharedStrings.xml'] = `<?xml version="1.0" encoding="UTF-8"?><sst ${NS}>${items}</sst>`;
  }
  parts['xl/styles.xml'] =
    `<?xml version="1.0" encoding="UTF-8"?><styleSheet ${NS}>` +
    (spec.styles ??
      '<fonts count="1"><font/></fonts><fills count="2"><fill><patternFill patternType="none"/></fill><fill><patternFill patternType="gray125"/></fill></fills><borders count="1"><border/></borders><cellXfs count="1"><xf numFmtId="0" fontId="0" fillId="0" borderId="0"/></cellXfs>') +
    '</styleSheet>';
  parts['xl/workbook.xml'] =
    `<?xml version="1.0" encoding="UTF-8"?><workbook ${NS}>` +
    (spec.date1904 ? '<workbookPr date1904="1"/>' : '<workbookPr/>') +
    `<sheets>${sheetEntries.join('')}</sheets>` +
    (spec.definedNames ? `<definedNames>${spec.definedNames}</definedNames>` : '') +
    '</workbook>';
  parts['xl/_rels/workbook.xml.rels'] =
    `<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">${workbookRels.join('')}</Relationships>`;
  return { ...parts, ...spec.parts };
}

/** `<row r="1"><c r="A1" …>…</c></row>` from a compact description. */
export function row(r: number, cells: string): string {
  return `<row r="${r}">${cells}</row>`;
}

export interface TempDir {
  dir: string;
  file(name: string, content: string | Buffer): Promise<string>;
  package(name: string, spec: PackageSpec): Promise<string>;
  remove(): Promise<void>;
}

export async function tempDir(prefix = 'exstruct-extract-'): Promise<TempDir> {
  const dir = await mkdtemp(path.join(os.tmpdir(), prefix));
  return {
    dir,
    async file(name, content) {
      const target = path.join(dir, name);
      await writeFile(target, content);
      return target;
    },
    async package(name, spec) {
      const target = path.join(dir, name);
      await writeFile(target, zipBytes(packageParts(spec)));
      return target;
    },
    remove: () => rm(dir, { recursive: true, force: true }),
  };
}

export interface Session {
  dir: string;
  client: TestClient;
  call<T = Record<string, unknown>>(
    tool: string,
    args: Record<string, unknown>,
  ): ReturnType<typeof callTool<T>>;
  close(): Promise<void>;
}

/** A server rooted at `dir`, connected to a real MCP client in memory. */
export async function connect(dir: string, options: { onConflict?: OnConflict } = {}): Promise<Session> {
  const paths = await PathPolicy.create({ roots: [dir] });
  const server = createServer({
    paths,
    logger: silentLogger,
    ...(options.onConflict ? { onConflict: options.onConflict } : {}),
  });
  const client = await connectInMemory(server);
  return {
    dir,
    client,
    call: (tool, args) => callTool(client.client, tool, args),
    close: () => client.close(),
  };
}

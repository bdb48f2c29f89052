import path from 'node:path/posix';
import { ToolError, type FileAccess } from '@mcp-workbench/core/engine';
import { ZipArchive, type ZipEntryInfo } from '../ooxml/zip-archive.js';
import {
  conformanceOf,
  isMainNs,
  isRelNs,
  MAIN_NS,
  MAIN_NS_STRICT,
  REL_NS,
  REL_NS_STRICT,
  type Conformance,
} from '../ooxml/namespaces.js';
import { ContentTypes } from './content-types.js';
import { readPartText } from './part-errors.js';
import { childElements, findElement, parseAttrs, parseTree, type Located } from './xml.js';

export const REL = {
  officeDocument: 'http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument',
  worksheet: 'http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet',
  styles: 'http://schemas.openxmlformats.org/officeDocument/2006/relationships/styles',
  sharedStrings: 'http://schemas.openxmlformats.org/officeDocument/2006/relationships/sharedStrings',
  calcChain: 'http://schemas.openxmlformats.org/officeDocument/2006/relationships/calcChain',
} as const;

export const WORKSHEET_CONTENT_TYPE =
  'application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml';

export interface Relationship {
  id: string;
  type: string;
  target: string;
  external: boolean;
  /** The part it points to (package path, no leading slash), for internal targets. */
  part: string | undefined;
}

export interface SheetEntry {
  name: string;
  sheetId: number;
  rId: string;
  /** Package path of the sheet's part, e.g. `xl/worksheets/sheet1.xml` (`''` when it has none). */
  part: string;
  /** visible | hidden | veryHidden */
  state: string;
  /**
   * `worksheet`, or `chartsheet`/`dialogsheet`/`macrosheet`, or `none` for a sheet whose relationship
   * is missing or empty (LibreOffice writes `r:id=""` for old macro and dialog sheets) — only
   * worksheets can be edited; every sheet can be renamed, moved or deleted.
   */
  kind: string;
  /** The `<sheet>` element in workbook.xml. */
  element: Located;
}

/** `state` as Excel reads it: anything but `hidden`/`veryHidden` (ExcelJS writes `show`) is visible. */
export function sheetState(value: string | undefined): 'visible' | 'hidden' | 'veryHidden' {
  return value === 'hidden' || value === 'veryHidden' ? value : 'visible';
}

/** `…/relationships/styles` (either conformance class) → `styles`; undefined for other types. */
export function relKind(type: string): string | undefined {
  const slash = type.lastIndexOf('/');
  return slash > 0 && isRelNs(type.slice(0, slash)) ? type.slice(slash + 1) : undefined;
}

/** The structural parts of an opened workbook: what edits need to know, read once. */
export class WorkbookPackage {
  private constructor(
    readonly file: string,
    readonly archive: ZipArchive,
    /** Original entry names by lower-cased name (OPC names are case-insensitive). */
    readonly entryNames: Map<string, string>,
    readonly contentTypesXml: string,
    readonly workbookPart: string,
    readonly workbookXml: string,
    readonly workbookRelsPart: string,
    readonly workbookRelsXml: string,
    readonly workbookRels: Relationship[],
    readonly sheets: SheetEntry[],
    /** Transitional or Strict: new parts and relationships are written in the workbook's vocabulary. */
    readonly conformance: Conformance,
  ) {}

  private contentTypes: ContentTypes | undefined;

  /** Opens a workbook to edit; a server passes `files` (its PathPolicy) so it is opened as checked. */
  static async open(file: string, files?: FileAccess): Promise<WorkbookPackage> {
    let archive: ZipArchive;
    try {
      archive = await ZipArchive.open(file, {}, files);
    } catch (error) {
      if (error instanceof ToolError) throw error;
      throw new ToolError(
        'UNSUPPORTED_FORMAT',
        `"${path.basename(file)}" is not a readable .xlsx/.xlsm package: ${(error as Error).message}.`,
        {
          hint: 'Open and re-save it in Excel as .xlsx, or check that the file is not truncated or encrypted.',
          cause: error,
        },
      );
    }
    try {
      const entryNames = new Map(archive.list().map((e: ZipEntryInfo) => [e.name.toLowerCase(), e.name]));
      const need = async (name: string) => {
        if (!archive.has(name)) {
          throw new ToolError(
            'UNSUPPORTED_FORMAT',
            `The package has no "${name}"; it is not an Excel workbook.`,
            {
              hint: 'Give a .xlsx or .xlsm file saved by Excel or a compatible program.',
            },
          );
        }
        return readPartText(archive, name);
      };
      const contentTypesXml = await need('[Content_Types].xml');
      const rootRels = parseRelationships(await need('_rels/.rels'), '');
      const office = rootRels.find(
        (r) => r.type === REL.officeDocument || r.type.endsWith('/officeDocument'),
      );
      if (!office?.part) {
        throw new ToolError('UNSUPPORTED_FORMAT', 'The package names no workbook part.', {
          hint: 'Give a .xlsx or .xlsm file saved by Excel or a compatible program.',
        });
      }
      const workbookPart = canonical(entryNames, office.part);
      const workbookXml = await need(workbookPart);
      const workbookRelsPart = relsPartOf(workbookPart);
      const workbookRelsXml = archive.has(workbookRelsPart)
        ? await readPartText(archive, workbookRelsPart)
        : '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"></Relationships>';
      const workbookRels = parseRelationships(workbookRelsXml, path.dirname(workbookPart)).map((r) => ({
        ...r,
        part: r.part ? canonical(entryNames, r.part) : undefined,
      }));
      const root = parseTree(workbookXml).find((n) => n.local === 'workbook');
      if (!root || !isMainNs(root.ns)) {
        throw new ToolError(
          'UNSUPPORTED_FORMAT',
          `The workbook part "${workbookPart}" is not a SpreadsheetML workbook (its root is ${root ? `<${root.qname}> in "${root.ns}"` : 'missing'}).`,
          { hint: 'Give a .xlsx or .xlsm file saved by Excel or a compatible program.' },
        );
      }
      const sheets = parseSheets(root, workbookRels);
      refuseSharedSheetParts(sheets);
      return new WorkbookPackage(
        file,
        archive,
        entryNames,
        contentTypesXml,
        workbookPart,
        workbookXml,
        workbookRelsPart,
        workbookRelsXml,
        workbookRels,
        sheets,
        conformanceOf(root.ns),
      );
    } catch (error) {
      archive.close();
      throw error;
    }
  }

  /**
   * The package path of the workbook's part of this kind (`styles`, …, either class): the first
   * relationship's whose part is in the package, else the first's (a part that is missing).
   */
  relatedPart(kind: string): string | undefined {
    const rels = this.relsOf(kind);
    return rels.find((r) => r.part !== undefined && this.has(r.part))?.part ?? rels[0]?.part;
  }

  /** The content type the package gives a part (see content-types.ts). */
  contentTypeOf(part: string): string | undefined {
    this.contentTypes ??= new ContentTypes(this.contentTypesXml);
    return this.contentTypes.of(part);
  }

  /** The workbook's relationships of a kind, Transitional or Strict. */
  relsOf(kind: string): Relationship[] {
    return this.workbookRels.filter((r) => relKind(r.type) === kind);
  }

  has(part: string): boolean {
    return this.archive.has(part);
  }

  close(): void {
    this.archive.close();
  }
}

function canonical(entryNames: Map<string, string>, part: string): string {
  return entryNames.get(part.toLowerCase()) ?? part;
}

/** `xl/workbook.xml` → `xl/_rels/workbook.xml.rels`. */
export function relsPartOf(part: string): string {
  const dir = path.dirname(part);
  return `${dir === '.' ? '' : `${dir}/`}_rels/${path.basename(part)}.rels`;
}

export function parseRelationships(xml: string, baseDir: string): Relationship[] {
  const rels: Relationship[] = [];
  const root = findElement(xml, 'Relationships');
  if (!root) return rels;
  for (const child of childElements(xml, root)) {
    const attrs = parseAttrs(xml.slice(child.start, child.openEnd));
    const target = attrs.get('Target') ?? '';
    const external = attrs.get('TargetMode') === 'External';
    rels.push({
      id: attrs.get('Id') ?? '',
      type: attrs.get('Type') ?? '',
      target,
      external,
      part: external ? undefined : resolveTarget(baseDir, target),
    });
  }
  return rels;
}

/**
 * The package part a relationship target names, or undefined when it names none: a target that climbs
 * out of the package (`../../evil.xml` from `xl/`) is no part of it, and a part written there would be a
 * zip entry outside the package for whoever unzips the output.
 */
function resolveTarget(baseDir: string, target: string): string | undefined {
  let decoded = target;
  try {
    decoded = decodeURIComponent(target);
  } catch {
    // A malformed percent sequence (`%ZZ`): the name as written.
  }
  const joined = decoded.startsWith('/')
    ? decoded.slice(1)
    : path.join(baseDir === '.' ? '' : baseDir, decoded);
  const part = path.normalize(joined).replace(/^\/+/, '');
  return part === '.' || part === '..' || part.startsWith('../') ? undefined : part;
}

/**
 * Two sheets whose relationships name one part: an edit of one would be lost under the other's, and
 * deleting one would delete the other's cells. Excel does not write such a workbook.
 */
function refuseSharedSheetParts(sheets: SheetEntry[]): void {
  const byPart = new Map<string, string>();
  for (const sheet of sheets) {
    if (sheet.part === '') continue;
    const other = byPart.get(sheet.part.toLowerCase());
    if (other !== undefined)
      throw new ToolError(
        'CORRUPT_WORKBOOK',
        `The sheets "${other}" and "${sheet.name}" name the same part "${sheet.part}"; it was not edited.`,
        {
          hint: 'Open and re-save the workbook in Excel, or check where it came from.',
          details: { part: sheet.part },
        },
      );
    byPart.set(sheet.part.toLowerCase(), sheet.name);
  }
}

const MAIN = [MAIN_NS, MAIN_NS_STRICT];

function parseSheets(workbook: Located, rels: Relationship[]): SheetEntry[] {
  const sheetsEl = workbook.children.find((el) => el.local === 'sheets' && MAIN.includes(el.ns));
  if (!sheetsEl) return [];
  return sheetsEl.children
    .filter((el) => el.local === 'sheet' && MAIN.includes(el.ns))
    .map((el) => {
      // The relationship id is the `id` attribute of the relationships namespace, whatever its prefix
      // and wherever that prefix was declared.
      const rId =
        el.nsAttrs.find((a) => a.local === 'id' && (a.ns === REL_NS || a.ns === REL_NS_STRICT))?.value ?? '';
      const rel = rId === '' ? undefined : rels.find((r) => r.id === rId);
      const kind = rel && !rel.external && rel.part ? (relKind(rel.type) ?? 'none') : 'none';
      return {
        name: el.attrs.get('name') ?? '',
        sheetId: Number(el.attrs.get('sheetId') ?? 0),
        rId,
        part: kind === 'none' ? '' : rel!.part!,
        state: sheetState(el.attrs.get('state')),
        kind,
        element: el,
      };
    });
}

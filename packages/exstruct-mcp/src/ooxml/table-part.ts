import { parseXmlTree } from './xml.js';
import type { ZipArchive } from './zip-archive.js';

export interface TableInfo {
  name: string;
  /** The table's range, e.g. `A1:D20`. */
  ref: string;
}

/** Reads an Excel table part (`xl/tables/tableN.xml`): its name and range. */
export async function readTablePart(zip: ZipArchive, part: string): Promise<TableInfo | undefined> {
  const table = parseXmlTree(await zip.readText(part), part);
  const ref = table.attrs.ref;
  if (!ref) return undefined;
  return { name: table.attrs.displayName ?? table.attrs.name ?? '', ref };
}

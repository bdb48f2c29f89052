import path from 'node:path/posix';
import type { ZipArchive } from './zip-archive.js';
import { attr, parseXmlText } from './xml.js';

export interface Relationship {
  id: string;
  /** The relationship type URI (transitional or strict namespace). */
  type: string;
  /** For internal targets: the resolved part name (no leading slash); for external ones: the URI. */
  target: string;
  external: boolean;
}

/** `xl/worksheets/sheet1.xml` → `xl/worksheets/_rels/sheet1.xml.rels`; `` (package) → `_rels/.rels`. */
export function relsPartFor(part: string): string {
  const dir = path.dirname(part);
  const base = path.basename(part);
  return dir === '.' || dir === '' ? `_rels/${base}.rels` : `${dir}/_rels/${base}.rels`;
}

/** Resolves a relationship target against the part that owns it (`../drawings/d1.xml` → `xl/drawings/d1.xml`). */
export function resolvePartTarget(sourcePart: string, target: string): string {
  if (target.startsWith('/')) return target.replace(/^\/+/, '');
  const dir = path.dirname(sourcePart);
  return path.normalize(path.join(dir === '.' ? '' : dir, target)).replace(/^\/+/, '');
}

/** True when the type URI ends with this relationship kind (`worksheet`, `drawing`, `hyperlink`, …). */
export function isRelType(rel: Relationship, kind: string): boolean {
  return rel.type.endsWith(`/${kind}`);
}

/**
 * Reads the relationships of a part (an empty map when the part has none). Reusable by every reader
 * and writer of the package: `readRelationships(zip, 'xl/workbook.xml')`.
 */
export async function readRelationships(
  zip: ZipArchive,
  sourcePart: string,
): Promise<Map<string, Relationship>> {
  const relsPart = relsPartFor(sourcePart);
  const rels = new Map<string, Relationship>();
  if (!zip.has(relsPart)) return rels;
  parseXmlText(await zip.readText(relsPart), relsPart, {
    open(name, attrs) {
      if (name !== 'Relationship') return;
      const id = attr(attrs, 'Id');
      const type = attr(attrs, 'Type');
      const target = attr(attrs, 'Target');
      if (!id || !type || target === undefined) return;
      const external = attr(attrs, 'TargetMode') === 'External';
      rels.set(id, {
        id,
        type,
        target: external ? target : resolvePartTarget(sourcePart, decodeTarget(target)),
        external,
      });
    },
  });
  return rels;
}

function decodeTarget(target: string): string {
  try {
    return decodeURI(target);
  } catch {
    return target;
  }
}

/** The first relationship of a kind (e.g. the drawing of a sheet). */
export function findRel(rels: Map<string, Relationship>, kind: string): Relationship | undefined {
  for (const rel of rels.values()) if (isRelType(rel, kind)) return rel;
  return undefined;
}

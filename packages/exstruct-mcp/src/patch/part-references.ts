// Which parts point at which through their relationships, for deleting what only a deleted sheet or
// chart used. The package's own relationships (`_rels/.rels`) count: a sheet's relationship to
// `../workbook.xml` or `/docProps/core.xml` must not make those parts look like the sheet's alone.
import path from 'node:path/posix';
import { parseRelationships, relsPartOf, type WorkbookPackage } from './package.js';
import { readPartText } from './part-errors.js';

/** Relationship sources and targets, by lower-cased part name (`''` is the package itself). */
interface References {
  targetsOf: Map<string, string[]>;
  sourcesOf: Map<string, Set<string>>;
}

const cache = new WeakMap<WorkbookPackage, Promise<References>>();

/** The part a relationships part belongs to: `xl/_rels/workbook.xml.rels` → `xl/workbook.xml`; `_rels/.rels` → `''`. */
export function sourceOfRels(relsPart: string): string | undefined {
  const m = /^(.*?)_rels\/([^/]*)\.rels$/i.exec(relsPart);
  return m ? `${m[1]}${m[2]}` : undefined;
}

function references(pkg: WorkbookPackage): Promise<References> {
  let found = cache.get(pkg);
  if (!found) cache.set(pkg, (found = readReferences(pkg)));
  return found;
}

async function readReferences(pkg: WorkbookPackage): Promise<References> {
  const targetsOf = new Map<string, string[]>();
  const sourcesOf = new Map<string, Set<string>>();
  for (const entry of pkg.archive.list()) {
    const source = sourceOfRels(entry.name);
    if (source === undefined) continue;
    const rels = parseRelationships(await readPartText(pkg.archive, entry.name), path.dirname(source));
    const targets = rels.flatMap((r) => (r.part ? [r.part.toLowerCase()] : []));
    targetsOf.set(source.toLowerCase(), targets);
    for (const target of targets) {
      let sources = sourcesOf.get(target);
      if (!sources) sourcesOf.set(target, (sources = new Set()));
      sources.add(source.toLowerCase());
    }
  }
  return { targetsOf, sourcesOf };
}

/** Parts no relationship may take with it: the content types, and relationships parts (they go with their part). */
function structural(part: string): boolean {
  return part === '[content_types].xml' || part.endsWith('.rels');
}

/** The parts whose relationships point at `part` (lower-cased; `''` for the package's own). */
export async function sourcesOf(pkg: WorkbookPackage, part: string): Promise<Set<string>> {
  return (await references(pkg)).sourcesOf.get(part.toLowerCase()) ?? new Set();
}

/**
 * Parts reachable only from the given parts (through their .rels), the parts themselves included, with
 * the relationships parts of them all.
 */
export async function exclusiveParts(pkg: WorkbookPackage, roots: string[]): Promise<string[]> {
  const { targetsOf, sourcesOf } = await references(pkg);
  const doomed = new Set(roots.map((r) => r.toLowerCase()));
  let grew = true;
  while (grew) {
    grew = false;
    for (const source of [...doomed]) {
      for (const target of targetsOf.get(source) ?? []) {
        if (doomed.has(target) || structural(target)) continue;
        const sources = sourcesOf.get(target) ?? new Set();
        if ([...sources].every((s) => doomed.has(s))) {
          doomed.add(target);
          grew = true;
        }
      }
    }
  }
  const names = new Map(pkg.archive.list().map((e) => [e.name.toLowerCase(), e.name]));
  const out: string[] = [];
  for (const part of doomed) {
    const name = names.get(part);
    if (name) out.push(name);
    const rels = names.get(relsPartOf(part).toLowerCase());
    if (rels) out.push(rels);
  }
  return out;
}

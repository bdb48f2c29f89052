// Names for the parts a patch adds. A name is free only when no entry has it nor its relationships
// part (case-insensitively, as OPC compares names): an orphan `xl/drawings/_rels/drawing1.xml.rels`
// would otherwise be written twice, or adopted by the new part with whatever it points at.
import { relsPartOf } from './package.js';

/**
 * The first free name `${dir}${stem}N.xml` (N = 1, 2, …), or with `unnumberedFirst` `${stem}.xml`, then
 * `${stem}2.xml`, …; taken into `entryNames` (the lower-cased names of the output's entries). `dir` is
 * `''` or ends with `/`.
 */
export function freshPartName(
  entryNames: Set<string>,
  dir: string,
  stem: string,
  unnumberedFirst = false,
): string {
  for (let n = 1; ; n++) {
    const part = `${dir}${stem}${unnumberedFirst && n === 1 ? '' : n}.xml`;
    const lower = part.toLowerCase();
    if (entryNames.has(lower) || entryNames.has(relsPartOf(lower))) continue;
    entryNames.add(lower);
    return part;
  }
}

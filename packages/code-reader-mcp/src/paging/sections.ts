import { fingerprint, fitPage, makeCursor, readCursor, staleCursor } from './budget.js';

type Sections = Record<string, readonly unknown[]>;

/**
 * Pages an answer made of several lists (classes, functions, imports, …) as one sequence, so a big
 * file's structure arrives in budget-sized pages. `build(sections, nextCursor)` makes the answer.
 */
export async function pageSections<T>(options: {
  sections: Sections;
  key: string;
  cursor: string | undefined;
  budget: number;
  build: (sections: Record<string, unknown[]>, nextCursor: string | undefined) => T;
  render: (value: T) => string;
}): Promise<T> {
  const rows: { section: string; item: unknown }[] = [];
  for (const [section, items] of Object.entries(options.sections))
    for (const item of items) rows.push({ section, item });
  const fp = fingerprint(rows);
  let offset = 0;
  if (options.cursor !== undefined) {
    const cursor = readCursor(options.cursor, options.key);
    if (cursor.h !== fp) throw staleCursor();
    offset = cursor.o;
  }
  const regroup = (page: readonly { section: string; item: unknown }[]) => {
    const grouped: Record<string, unknown[]> = {};
    for (const name of Object.keys(options.sections)) grouped[name] = [];
    for (const row of page) grouped[row.section]?.push(row.item);
    return grouped;
  };
  const cursorAt = (next: number | undefined) =>
    next === undefined ? undefined : makeCursor(options.key, next, fp);
  const page = await fitPage(rows, offset, options.budget, (candidate, hasMore) =>
    options.render(
      options.build(regroup(candidate), cursorAt(hasMore ? offset + candidate.length : undefined)),
    ),
  );
  return options.build(regroup(page.rows), cursorAt(page.nextOffset));
}

// Another round: what changed in a file since the version the person reviewed last round.
import { diffLines } from 'diff';
import { h } from './dom.js';
import { t } from './i18n.js';

/** The lines of a text as the server counts them (a final newline ends a line). */
function linesOf(text: string): string[] {
  const lines = text.split(/\r\n|\n|\r/);
  if (lines[lines.length - 1] === '') lines.pop();
  return lines;
}

interface DiffRow {
  kind: 'same' | 'added' | 'removed';
  old?: number;
  new?: number;
  text: string;
}

function diffRows(previous: string, current: string): DiffRow[] {
  const rows: DiffRow[] = [];
  let oldLine = 0;
  let newLine = 0;
  for (const part of diffLines(linesOf(previous).join('\n') + '\n', linesOf(current).join('\n') + '\n')) {
    for (const text of linesOf(part.value)) {
      if (part.added) rows.push({ kind: 'added', new: ++newLine, text });
      else if (part.removed) rows.push({ kind: 'removed', old: ++oldLine, text });
      else rows.push({ kind: 'same', old: ++oldLine, new: ++newLine, text });
    }
  }
  return rows;
}

export interface LineChanges {
  /** Lines of the current text that are new or rewritten. */
  added: Set<number>;
  /** Removed lines, by the current line they followed (0 = the top). */
  removed: Map<number, number>;
  addedCount: number;
  removedCount: number;
}

export function lineChanges(previous: string, current: string): LineChanges {
  const changes: LineChanges = { added: new Set(), removed: new Map(), addedCount: 0, removedCount: 0 };
  let lastNew = 0;
  for (const row of diffRows(previous, current)) {
    if (row.kind === 'added') {
      changes.added.add(row.new!);
      changes.addedCount++;
    } else if (row.kind === 'removed') {
      changes.removed.set(lastNew, (changes.removed.get(lastNew) ?? 0) + 1);
      changes.removedCount++;
    }
    if (row.new !== undefined) lastNew = row.new;
  }
  return changes;
}

const CONTEXT = 3;

/** Unchanged stretches longer than the context around changes fold into one "⋯ n unchanged lines" row. */
function folded(rows: DiffRow[]): Array<DiffRow | { kind: 'fold'; count: number }> {
  const near = new Set<number>();
  rows.forEach((row, i) => {
    if (row.kind === 'same') return;
    for (let j = Math.max(0, i - CONTEXT); j <= Math.min(rows.length - 1, i + CONTEXT); j++) near.add(j);
  });
  const out: Array<DiffRow | { kind: 'fold'; count: number }> = [];
  let skipped = 0;
  rows.forEach((row, i) => {
    if (row.kind === 'same' && !near.has(i)) {
      skipped++;
      return;
    }
    if (skipped > 0) out.push({ kind: 'fold', count: skipped });
    skipped = 0;
    out.push(row);
  });
  if (skipped > 0) out.push({ kind: 'fold', count: skipped });
  return out;
}

const num = (n: number | undefined) => h('span', { class: 'num' }, n === undefined ? '' : String(n));
const sign = { same: ' ', added: '+', removed: '−' } as const;

/** The changes since last round, inline (one column) or side by side. */
export function changesView(previous: string, current: string, layout: 'inline' | 'split'): HTMLElement {
  const rows = folded(diffRows(previous, current));
  const view = h('div', { class: `diff diff-${layout}`, role: 'table', 'aria-label': t.changes });
  if (layout === 'inline') {
    for (const row of rows) {
      if (row.kind === 'fold') {
        view.append(h('div', { class: 'diff-fold' }, t.unchangedLines(row.count)));
        continue;
      }
      view.append(
        h(
          'div',
          { class: `diff-row ${row.kind}`, role: 'row' },
          num(row.old),
          num(row.new),
          h('span', { class: 'sign' }, sign[row.kind]),
          h('code', {}, row.text || '\u200b'),
        ),
      );
    }
    return view;
  }
  // Side by side: removed lines on the left next to the lines that replaced them on the right.
  for (let i = 0; i < rows.length;) {
    const row = rows[i]!;
    if (row.kind === 'fold') {
      view.append(h('div', { class: 'diff-fold' }, t.unchangedLines(row.count)));
      i++;
      continue;
    }
    if (row.kind === 'same') {
      view.append(pair(row, row));
      i++;
      continue;
    }
    const removed: DiffRow[] = [];
    const added: DiffRow[] = [];
    while (i < rows.length && (rows[i] as DiffRow).kind === 'removed') removed.push(rows[i++] as DiffRow);
    while (i < rows.length && (rows[i] as DiffRow).kind === 'added') added.push(rows[i++] as DiffRow);
    for (let j = 0; j < Math.max(removed.length, added.length); j++) view.append(pair(removed[j], added[j]));
  }
  return view;
}

function pair(left: DiffRow | undefined, right: DiffRow | undefined): HTMLElement {
  const side = (row: DiffRow | undefined, which: 'old' | 'new') =>
    h(
      'div',
      { class: `diff-side ${row ? row.kind : 'empty'}` },
      num(row?.[which]),
      h('code', {}, row ? row.text || '\u200b' : ''),
    );
  return h('div', { class: 'diff-row', role: 'row' }, side(left, 'old'), side(right, 'new'));
}

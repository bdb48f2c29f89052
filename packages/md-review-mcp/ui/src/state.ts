import type { Api, FileView, SessionView } from './api.js';
import type { LineChanges } from './changes.js';

/** A selectable unit: a rendered block, or one source line. Lines are 1-based, inclusive. */
export interface Unit {
  start: number;
  end: number;
}

export interface Selection {
  anchor: number;
  focus: number;
}

export interface State {
  api: Api;
  session: SessionView;
  fileIndex: number;
  file: FileView | undefined;
  /** changes: what changed since last round (only when the file did). */
  mode: 'rendered' | 'source' | 'changes';
  /** How the changes view shows them. */
  diffLayout: 'inline' | 'split';
  /** The current file's changes since last round, when it changed. */
  changes: LineChanges | undefined;
  units: Unit[];
  selection: Selection | undefined;
  /** The comment being edited inline, if any. */
  editing: string | undefined;
  /** Text typed into the comment box, kept while the selection changes. */
  draft: string;
}

export function selectedRange(state: Pick<State, 'units' | 'selection'>): Unit | undefined {
  const { selection, units } = state;
  if (!selection) return undefined;
  const a = units[selection.anchor];
  const b = units[selection.focus];
  if (!a || !b) return undefined;
  return { start: Math.min(a.start, b.start), end: Math.max(a.end, b.end) };
}

export const isOpen = (state: State) => state.session.status === 'open';

/** The unit a comment is shown under: the one holding its last line (or the nearest one above). */
export function unitOfLine(units: Unit[], line: number): number {
  let best = 0;
  for (let i = 0; i < units.length; i++) {
    if (units[i]!.start <= line) best = i;
    else break;
  }
  return best;
}

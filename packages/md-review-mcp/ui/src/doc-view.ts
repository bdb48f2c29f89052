import { SEVERITIES, type InlineComment, type Placement, type Severity } from './api.js';
import { changesView } from './changes.js';
import { renderDiagramsIn } from './diagrams.js';
import { confirmDialog } from './dialogs.js';
import { earlierRound, earlierTag } from './earlier-round.js';
import { clear, h } from './dom.js';
import { t } from './i18n.js';
import { codeLanguagesIn } from './code-languages.js';
import {
  BlockStream,
  blockElements,
  highlightSoon,
  loadCodeLanguages,
  type BlockSource,
} from './markdown.js';
import { isOpen, selectedRange, unitOfLine, type State, type Unit } from './state.js';

/** Rows built before the page counts as usable (about three screenfuls). */
const FIRST_SLICE = 60;
/** Work per slice after the first screen: far below the 50 ms that makes input wait. */
const SLICE_MS = 8;
/** Blocks sanitized together (one DOMPurify pass), source lines built together. */
const BLOCK_BATCH = 16;
const LINE_BATCH = 100;

export interface DocActions {
  saveComment(range: Unit, text: string, severity: Severity): Promise<boolean>;
  updateComment(id: string, text: string, severity: Severity): Promise<boolean>;
  deleteComment(id: string): Promise<void>;
  /** Something changed that other parts of the page show (counts, markers). */
  changed(): void;
}

/**
 * The document of the selected file: rows of (line-number gutter, content), in rendered or source view,
 * with the comments under the rows they are about and the comment box under the selection.
 */
export class DocView {
  readonly root = h('div', { class: 'doc', role: 'document' });
  private rows: HTMLElement[] = [];
  private dragging = false;
  private lastRenderMs = 0;
  /** Bumped at every render, so slices of an earlier one stop. */
  private generation = 0;
  /** Saves the open comment box (set while one is open). */
  private saveOpenComposer: (() => Promise<boolean>) | undefined;

  constructor(
    private readonly state: State,
    private readonly actions: DocActions,
  ) {
    this.root.addEventListener('mousedown', (e) => this.onMouseDown(e));
    this.root.addEventListener('mouseover', (e) => this.onMouseOver(e));
    document.addEventListener('mouseup', () => this.onMouseUp());
  }

  get renderMs(): number {
    return this.lastRenderMs;
  }

  /**
   * Rebuilds the rows from the current file and mode. The first screenful is built at once (the page is
   * usable then); the rest follows in slices between frames, so a 5,000-line document never blocks
   * input. `onComplete` runs when every row exists.
   */
  render(onComplete?: () => void): void {
    const started = performance.now();
    const generation = ++this.generation;
    const { file, mode } = this.state;
    clear(this.root);
    this.rows = [];
    this.state.selection = undefined;
    if (!file) return;
    if (mode === 'changes' && file.previous !== undefined) {
      this.state.units = [];
      this.root.append(this.changesPane(file.previous, file.text));
      this.lastRenderMs = performance.now() - started;
      onComplete?.();
      return;
    }
    const units: Unit[] = [];
    this.state.units = units;
    // What is built next: the blocks of the document parsed a piece at a time, or its source lines.
    const stream = mode === 'rendered' ? new BlockStream(file.text) : undefined;
    const queue: BlockSource[] = [];
    const lines = mode === 'source' ? splitSourceLines(file.text) : [];
    let nextLine = 0;
    // Blocks per batch after the first screen: as many as fit in a slice at the pace measured so far
    // (one long table or code block can take as long as sixteen short paragraphs).
    let blockBatch = BLOCK_BATCH;
    const nextBatch = (): Array<{ unit: Unit; content: HTMLElement }> | undefined => {
      if (stream) {
        while (queue.length === 0 && !stream.done) queue.push(...stream.take());
        if (queue.length === 0) return undefined;
        const batch = queue.splice(0, blockBatch);
        const contents = blockElements(batch);
        return batch.map((b, i) => ({ unit: { start: b.start, end: b.end }, content: contents[i]! }));
      }
      if (nextLine >= lines.length) return undefined;
      const batch = lines.slice(nextLine, nextLine + LINE_BATCH);
      const first = nextLine;
      nextLine += batch.length;
      return batch.map((line, i) => ({
        unit: { start: first + i + 1, end: first + i + 1 },
        content: h('pre', { class: 'block source-line' }, line || '\u200b'),
      }));
    };
    /** Builds rows until `deadline` (and at least `minRows`); true when every row exists. */
    const build = (deadline: number, minRows = 0): boolean => {
      for (;;) {
        const batchStarted = performance.now();
        const batch = nextBatch();
        if (!batch) return true;
        const fragment = document.createDocumentFragment();
        for (const { unit, content } of batch) {
          const row = this.row(units.length, unit, content);
          units.push(unit);
          this.rows.push(row);
          fragment.append(row);
        }
        this.root.append(fragment);
        const now = performance.now();
        const perBlock = (now - batchStarted) / batch.length;
        blockBatch = Math.max(1, Math.min(BLOCK_BATCH, Math.floor(SLICE_MS / Math.max(perBlock, 0.01))));
        if (this.rows.length >= minRows && now >= deadline) return false;
      }
    };
    const done = build(started, FIRST_SLICE); // the first screenful, at once: the page is usable now
    if (mode === 'rendered')
      void loadCodeLanguages(codeLanguagesIn(file.text)).then(() =>
        highlightSoon(this.root, () => generation === this.generation),
      );
    this.renderThreads();
    this.lastRenderMs = performance.now() - started;
    const finish = () => {
      if (this.rows.length > FIRST_SLICE) this.renderThreads();
      if (mode === 'rendered') void renderDiagramsIn(this.root, () => generation === this.generation);
      onComplete?.();
    };
    if (done) return finish();
    // The rest in short slices between tasks, so input is never kept waiting.
    const rest = () => {
      if (generation !== this.generation) return; // another file or view took over
      if (build(performance.now() + SLICE_MS)) finish();
      else setTimeout(rest, 0);
    };
    setTimeout(rest, 0);
  }

  private row(i: number, unit: Unit, content: HTMLElement): HTMLElement {
    const label = unit.start === unit.end ? String(unit.start) : `${unit.start}–${unit.end}`;
    const where = t.lines(unit.start, unit.end);
    const button = h(
      'button',
      { class: 'ln', type: 'button', 'data-u': i, title: where, 'aria-label': where },
      label,
    );
    const row = h(
      'div',
      { class: 'row', 'data-u': i, 'data-start': unit.start, 'data-end': unit.end },
      h('div', { class: 'gutter' }, button),
      content,
    );
    const changes = this.state.changes;
    if (changes) {
      // Another round: new or rewritten lines are marked, and where lines were removed.
      for (let line = unit.start; line <= unit.end; line++) {
        if (changes.added.has(line)) {
          row.classList.add('changed');
          row.title = t.changedSinceLastRound;
          break;
        }
      }
      let removed = i === 0 ? (changes.removed.get(0) ?? 0) : 0;
      for (let line = unit.start; line <= unit.end; line++) removed += changes.removed.get(line) ?? 0;
      if (removed > 0) row.dataset.removed = t.removedLines(removed);
    }
    return row;
  }

  /** The changes since last round, with the inline / side-by-side switch. */
  private changesPane(previous: string, current: string): HTMLElement {
    const layout = this.state.diffLayout;
    const button = (which: State['diffLayout'], label: string) =>
      h(
        'button',
        {
          type: 'button',
          class: layout === which ? 'on' : undefined,
          'aria-pressed': String(layout === which),
          onclick: () => {
            this.state.diffLayout = which;
            this.render();
          },
        },
        label,
      );
    return h(
      'div',
      { class: 'changes' },
      h(
        'div',
        { class: 'changes-head' },
        h(
          'span',
          {},
          t.changesSummary(this.state.changes?.addedCount ?? 0, this.state.changes?.removedCount ?? 0),
        ),
        h('div', { class: 'segmented' }, button('inline', t.inline), button('split', t.sideBySide)),
      ),
      changesView(previous, current, layout),
    );
  }

  /**
   * Re-places the comments (after an edit, a poll, the last slice of a long document). An open comment
   * box is left where it is, neither moved nor rebuilt: doing either took the focus and let keystrokes
   * fall through to the shortcuts (audit defect 4). It closes only when its selection is gone.
   */
  renderThreads(): void {
    for (const old of Array.from(this.root.querySelectorAll('.thread'))) old.remove();
    const composer = this.root.querySelector('.composer-row');
    if (composer && (!selectedRange(this.state) || !isOpen(this.state))) composer.remove();
    for (const row of this.rows)
      row.classList.remove('commented', 'sev-must', 'sev-should', 'sev-suggestion', 'sev-question');
    const { file, session, units } = this.state;
    if (!file || units.length === 0) return this.paintRows();
    const byUnit = new Map<number, InlineComment[]>();
    for (const comment of session.inline_comments.filter((c) => c.fileIndex === file.index)) {
      // Where its lines are now (they may have moved since it was written).
      const { range } = this.placement(comment);
      const u = unitOfLine(units, range.endLine);
      byUnit.set(u, [...(byUnit.get(u) ?? []), comment]);
      for (let i = unitOfLine(units, range.startLine); i <= u; i++) this.rows[i]?.classList.add('commented');
    }
    for (const [u, comments] of byUnit) {
      comments.sort(
        (a, b) => a.range.startLine - b.range.startLine || a.createdAt.localeCompare(b.createdAt),
      );
      const worst = SEVERITIES.find((s) => comments.some((c) => c.severity === s))!;
      this.rows[u]?.classList.add(`sev-${worst}`);
      // Right after its row: before a comment box that sits under the same row.
      this.rows[u]?.after(
        h('div', { class: 'thread', 'data-after': u }, ...comments.map((c) => this.card(c))),
      );
    }
    this.paintRows();
  }

  select(anchor: number, focus: number, openBox: boolean): void {
    const max = this.state.units.length - 1;
    if (max < 0) return;
    const clamp = (n: number) => Math.max(0, Math.min(max, n));
    this.state.selection = { anchor: clamp(anchor), focus: clamp(focus) };
    // While the mouse selects, the comment box stays put: moving it would shift the rows under the
    // pointer and stretch the selection. It moves when the button is released.
    if (this.dragging) this.paintRows();
    else this.paintSelection(openBox);
    this.rows[clamp(focus)]?.scrollIntoView({ block: 'nearest' });
  }

  clearSelection(): void {
    this.state.selection = undefined;
    this.state.draft = '';
    this.saveOpenComposer = undefined;
    this.paintSelection();
  }

  /** Closes the comment box, asking first when it holds text (Escape or its Cancel button). */
  async dismissComposer(): Promise<void> {
    if (this.unsavedDraft !== '' && !(await confirmDialog(t.discardTitle, t.discardBody, t.discard, true))) {
      this.root.querySelector<HTMLTextAreaElement>('.composer-row textarea')?.focus();
      return;
    }
    this.clearSelection();
  }

  /** Text typed in the open comment box and not saved yet ('' when none). */
  get unsavedDraft(): string {
    return this.composerOpen ? this.state.draft.trim() : '';
  }

  /** Saves what the open comment box holds; true when there was nothing to save or it was saved. */
  async saveDraft(): Promise<boolean> {
    return this.unsavedDraft === '' || ((await this.saveOpenComposer?.()) ?? true);
  }

  /** An existing comment is being edited in place (a poll must not redraw it away). */
  get editingComment(): boolean {
    return this.root.querySelector('.thread form.composer') !== null;
  }

  /** The file could not be read: says so in place of its text (the rest of the review goes on). */
  showError(message: string): void {
    this.generation++;
    clear(this.root);
    this.rows = [];
    this.state.units = [];
    this.state.selection = undefined;
    this.root.append(h('p', { class: 'file-error', role: 'alert' }, message));
  }

  /** Opens the comment box under the current selection. */
  openComposer(): void {
    this.paintSelection(true);
  }

  get composerOpen(): boolean {
    return this.root.querySelector('.composer-row') !== null;
  }

  private paintRows(): void {
    const range = selectedRange(this.state);
    for (const row of this.rows) {
      const start = Number(row.dataset.start);
      row.classList.toggle(
        'selected',
        range !== undefined && start >= range.start && Number(row.dataset.end) <= range.end,
      );
    }
  }

  private paintSelection(openBox = this.composerOpen): void {
    this.paintRows();
    const range = selectedRange(this.state);
    this.root.querySelector('.composer-row')?.remove();
    if (!range || !openBox || !isOpen(this.state)) return;
    const last = Math.max(this.state.selection!.anchor, this.state.selection!.focus);
    const anchorRow = this.root.querySelector(`.thread[data-after="${last}"]`) ?? this.rows[last];
    const composer = this.composer(range);
    anchorRow?.after(composer);
    composer.querySelector('textarea')?.focus();
  }

  private composer(range: Unit): HTMLElement {
    const text = h('textarea', {
      rows: 4,
      placeholder: t.commentPlaceholder,
      'aria-label': t.comment,
    });
    text.value = this.state.draft;
    text.addEventListener('input', () => (this.state.draft = text.value));
    const severity = severitySelect('should');
    const save = async (): Promise<boolean> => {
      if (text.value.trim() === '') {
        text.focus();
        return false;
      }
      if (!(await this.actions.saveComment(range, text.value, severity.value as Severity))) return false;
      this.state.draft = '';
      this.state.selection = undefined;
      this.saveOpenComposer = undefined;
      this.renderThreads();
      this.actions.changed();
      return true;
    };
    this.saveOpenComposer = save;
    text.addEventListener('keydown', (e) => {
      if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) {
        e.preventDefault();
        void save();
      }
    });
    return h(
      'div',
      { class: 'composer-row' },
      h(
        'form',
        { class: 'composer', onsubmit: (e: SubmitEvent) => (e.preventDefault(), void save()) },
        h(
          'div',
          { class: 'composer-head' },
          h('strong', {}, t.commentOnSelection(range.start, range.end)),
          h('label', {}, `${t.severity} `, severity),
        ),
        text,
        h(
          'div',
          { class: 'actions' },
          h('button', { type: 'button', onclick: () => void this.dismissComposer() }, t.cancel),
          h('button', { type: 'submit', class: 'primary' }, t.save),
        ),
      ),
    );
  }

  /** A comment's place in the file as it is now (from the server), or where it was written. */
  private placement(comment: InlineComment): Placement {
    return (
      this.state.file?.placements.find((p) => p.id === comment.id) ?? {
        id: comment.id,
        state: 'current',
        range: comment.range,
      }
    );
  }

  private card(comment: InlineComment): HTMLElement {
    const placement = this.placement(comment);
    const stale = placement.state === 'lost';
    const range = placement.range;
    const card = h(
      'article',
      { class: `comment sev-${comment.severity}`, 'data-id': comment.id },
      h(
        'header',
        {},
        h(
          'span',
          { class: `badge sev-${comment.severity}`, title: t.severityHelp[comment.severity] },
          t.severities[comment.severity],
        ),
        h('span', { class: 'where' }, t.lines(range.startLine, range.endLine)),
        earlierTag(earlierRound(comment, this.state.session)),
        stale ? h('span', { class: 'stale', title: t.fileChanged }, `⚠ ${t.stale}`) : null,
        placement.state === 'moved'
          ? h(
              'span',
              { class: 'moved', title: t.movedFrom(comment.range.startLine, comment.range.endLine) },
              '↕',
            )
          : null,
        isOpen(this.state)
          ? h(
              'span',
              { class: 'tools' },
              h('button', { type: 'button', class: 'link', onclick: () => this.edit(card, comment) }, t.edit),
              h(
                'button',
                {
                  type: 'button',
                  class: 'link danger',
                  onclick: () => void this.actions.deleteComment(comment.id),
                },
                t.delete,
              ),
            )
          : null,
      ),
      h('p', { class: 'text' }, comment.comment),
      // Its lines changed: the text it was about, as it was.
      stale ? h('blockquote', { class: 'was', title: t.wasTitle }, comment.anchor.preview) : null,
    );
    card.classList.toggle('is-stale', stale);
    return card;
  }

  private edit(card: HTMLElement, comment: InlineComment): void {
    const text = h('textarea', { rows: 3, 'aria-label': t.comment });
    text.value = comment.comment;
    const severity = severitySelect(comment.severity);
    const save = async () => {
      if (text.value.trim() === '') return text.focus();
      if (await this.actions.updateComment(comment.id, text.value, severity.value as Severity))
        this.renderThreads();
    };
    text.addEventListener('keydown', (e) => {
      if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) {
        e.preventDefault();
        void save();
      } else if (e.key === 'Escape') {
        e.stopPropagation();
        this.renderThreads();
      }
    });
    card.replaceChildren(
      h(
        'form',
        { class: 'composer', onsubmit: (e: SubmitEvent) => (e.preventDefault(), void save()) },
        h(
          'div',
          { class: 'composer-head' },
          h('strong', {}, t.lines(comment.range.startLine, comment.range.endLine)),
          h('label', {}, `${t.severity} `, severity),
        ),
        text,
        h(
          'div',
          { class: 'actions' },
          h('button', { type: 'button', onclick: () => this.renderThreads() }, t.cancel),
          h('button', { type: 'submit', class: 'primary' }, t.save),
        ),
      ),
    );
    text.focus();
  }

  // Selection with the mouse: click a line number, shift-click to extend, or drag along the gutter.
  private unitAt(target: EventTarget | null): number | undefined {
    const row = (target as HTMLElement | null)?.closest?.('.row') as HTMLElement | null;
    return row && this.root.contains(row) ? Number(row.dataset.u) : undefined;
  }

  private onMouseDown(event: MouseEvent): void {
    if (event.button !== 0 || !(event.target as HTMLElement).closest('.gutter')) return;
    const u = this.unitAt(event.target);
    if (u === undefined) return;
    event.preventDefault();
    const selection = this.state.selection;
    this.dragging = true;
    if (event.shiftKey && selection) this.select(selection.anchor, u, false);
    else this.select(u, u, false);
  }

  private onMouseOver(event: MouseEvent): void {
    if (!this.dragging || !this.state.selection) return;
    const u = this.unitAt(event.target);
    if (u !== undefined && u !== this.state.selection.focus)
      this.select(this.state.selection.anchor, u, false);
  }

  private onMouseUp(): void {
    if (!this.dragging) return;
    this.dragging = false;
    if (isOpen(this.state)) this.openComposer();
  }
}

function severitySelect(value: Severity): HTMLSelectElement {
  const select = h(
    'select',
    { name: 'severity', 'aria-label': t.severity },
    ...SEVERITIES.map((s) =>
      h('option', { value: s, title: t.severityHelp[s] }, `${t.severities[s]} — ${t.severityHelp[s]}`),
    ),
  );
  select.value = value;
  return select;
}

function splitSourceLines(text: string): string[] {
  const lines = text.split(/\r\n|\n|\r/);
  if (lines[lines.length - 1] === '') lines.pop();
  return lines;
}

import './styles.css';
import { Api, ApiError, type FileView, type SessionView, type Severity } from './api.js';
import { choiceDialog, confirmDialog, helpDialog } from './dialogs.js';
import { lineChanges } from './changes.js';
import { DocView } from './doc-view.js';
import { append, h } from './dom.js';
import { lang, t } from './i18n.js';
import { Sidebar } from './sidebar.js';
import { isOpen, type State } from './state.js';
import { initTheme, toggleTheme } from './theme.js';

const POLL_MS = 2500;

class App {
  private readonly doc: DocView;
  private readonly sidebar: Sidebar;
  private readonly banner = h('div', { class: 'banner', role: 'status', 'aria-live': 'polite' });
  private readonly counts = h('span', { class: 'counts' });
  private readonly fileHead = h('div', { class: 'file-head' });
  private readonly finalizeButton = h(
    'button',
    { type: 'button', class: 'primary', id: 'finalize', onclick: () => void this.finalize() },
    t.finalize,
  );
  private readonly cancelButton = h(
    'button',
    { type: 'button', id: 'cancel', onclick: () => void this.cancel() },
    t.cancel,
  );
  /** The round whose text the page shows: a new round number means reload, however fast it came. */
  private shownRound: number;
  /** Each file's hash as the page showed it: finalizing certifies exactly these texts. */
  private readonly seen = new Map<number, string>();
  private poller: number | undefined;

  constructor(private readonly state: State) {
    this.shownRound = state.session.round;
    this.doc = new DocView(state, {
      saveComment: async (range, text, severity) => {
        const saved = await this.mutate(() =>
          state.api.addComment({
            fileIndex: state.fileIndex,
            startLine: range.start,
            endLine: range.end,
            comment: text,
            severity,
            fileContentHash: state.file!.fileContentHash,
          }),
        );
        if (!saved) await this.checkOnDisk([state.fileIndex]); // refused: the file changed under the page?
        return saved;
      },
      updateComment: (id, text, severity: Severity) =>
        this.mutate(() => state.api.updateComment(id, { comment: text, severity })),
      deleteComment: async (id) => {
        if (await confirmDialog(t.confirmDelete, '', t.delete, true))
          await this.mutate(() => state.api.deleteComment(id), true);
      },
      changed: () => this.renderChrome(),
    });
    this.sidebar = new Sidebar(state, {
      showFile: (index) => void this.showFile(index),
      setReviewed: async (index, reviewed) =>
        void (await this.mutate(() => state.api.setReviewed(index, reviewed), true)),
      addGlobal: (text) => this.mutate(() => state.api.addGlobal(text), true),
      updateGlobal: (id, text) => this.mutate(() => state.api.updateGlobal(id, text), true),
      deleteGlobal: async (id) => {
        if (await confirmDialog(t.confirmDelete, '', t.delete, true))
          await this.mutate(() => state.api.deleteGlobal(id), true);
      },
      setOverall: async (text) => void (await this.mutate(() => state.api.setOverall(text))),
    });
  }

  mount(): void {
    const header = h(
      'header',
      { class: 'top' },
      h('div', { class: 'title' }, h('h1', {}, this.state.session.title), this.counts),
      h(
        'div',
        { class: 'actions' },
        h(
          'button',
          { type: 'button', class: 'icon', title: t.help, 'aria-label': t.help, onclick: () => helpDialog() },
          '?',
        ),
        h(
          'button',
          {
            type: 'button',
            class: 'icon',
            id: 'theme',
            title: t.theme,
            'aria-label': t.theme,
            onclick: () => toggleTheme(),
          },
          '◐',
        ),
        this.cancelButton,
        this.finalizeButton,
      ),
    );
    const main = h(
      'main',
      { class: 'content' },
      this.fileHead,
      h('p', { class: 'hint' }, t.selectHint),
      this.doc.root,
    );
    document
      .getElementById('app')!
      .replaceWith(
        h(
          'div',
          { id: 'app', class: 'app' },
          header,
          this.banner,
          h('div', { class: 'layout' }, this.sidebar.root, main),
        ),
      );
    document.title = `${this.state.session.title} — md-review`;
    document.documentElement.lang = lang;
    this.renderChrome();
    document.addEventListener('keydown', (e) => this.onKey(e));
    this.poller = window.setInterval(() => void this.poll(), POLL_MS);
  }

  /** Shows file `index`; `prefetched` is its content when the caller already asked for it. */
  async showFile(index: number, prefetched?: Promise<FileView>): Promise<void> {
    if (index < 0 || index >= this.state.session.files.length) return;
    this.state.fileIndex = index;
    this.state.draft = '';
    try {
      this.state.file = await (prefetched ?? this.state.api.file(index));
    } catch (error) {
      // One file that cannot be read (gone, now outside the roots) is that file's problem, not the page's.
      if (!(error instanceof ApiError) || isAuthFailure(error) || error.status === 410)
        return this.fail(error);
      this.state.file = undefined;
      this.state.changes = undefined;
      this.doc.showError(t.fileUnavailable(error.message));
      document.body.dataset.file = String(index);
      this.renderChrome();
      return;
    }
    this.seen.set(index, this.state.file.fileContentHash);
    if (this.banner.dataset.kind === 'changed') this.banner.dataset.kind = 'info';
    const previous = this.state.file.previous;
    this.state.changes = previous === undefined ? undefined : lineChanges(previous, this.state.file.text);
    if (this.state.mode === 'changes' && !this.state.changes) this.state.mode = 'rendered';
    delete document.body.dataset.complete;
    this.doc.render(() => {
      // Every row exists (big documents are built in slices after the first screenful).
      document.body.dataset.completeAt = performance.now().toFixed(1);
      document.body.dataset.complete = 'true';
    });
    document.body.dataset.renderMs = this.doc.renderMs.toFixed(1);
    document.body.dataset.file = String(index);
    this.renderChrome();
    window.scrollTo(0, 0);
  }

  /** Runs an edit, takes the session it answers with, and redraws what depends on it. */
  private async mutate(action: () => Promise<SessionView>, redrawThreads = false): Promise<boolean> {
    try {
      this.state.session = await action();
    } catch (error) {
      this.fail(error);
      return false;
    }
    if (redrawThreads) this.doc.renderThreads();
    this.renderChrome();
    return true;
  }

  private renderChrome(): void {
    const { session } = this.state;
    const open = isOpen(this.state);
    this.counts.textContent = t.counts(
      session.summary.inline_comment_count,
      session.summary.global_comment_count,
      session.summary.earlier_comment_count,
    );
    const moved = document.body.dataset.status === 'moved';
    this.finalizeButton.disabled = !open || moved;
    this.cancelButton.disabled = !open || moved;
    if (!moved) document.body.dataset.status = session.status;
    this.sidebar.render(session);
    const file = this.state.file;
    const entry = session.files[this.state.fileIndex];
    if (!file) this.fileHead.replaceChildren(h('h2', { class: 'path' }, entry?.file ?? ''));
    if (file && entry) {
      const reviewed = h('input', {
        type: 'checkbox',
        id: 'reviewed',
        checked: entry.reviewed,
        disabled: !open,
      });
      reviewed.addEventListener(
        'change',
        () => void this.mutate(() => this.state.api.setReviewed(entry.index, reviewed.checked)),
      );
      const modeButton = (mode: State['mode'], label: string) =>
        h(
          'button',
          {
            type: 'button',
            class: this.state.mode === mode ? 'on' : undefined,
            'aria-pressed': String(this.state.mode === mode),
            onclick: () => this.setMode(mode),
          },
          label,
        );
      this.fileHead.replaceChildren();
      append(
        this.fileHead,
        h('h2', { class: 'path' }, entry.file),
        h('span', { class: 'meta' }, t.lineCount(file.lineCount)),
        h(
          'div',
          { class: 'segmented' },
          modeButton('rendered', t.rendered),
          modeButton('source', t.source),
          this.state.changes ? modeButton('changes', t.changesButton) : null,
        ),
        session.round > 1
          ? h(
              'span',
              { class: `round ${this.state.changes ? 'has-changes' : ''}`, id: 'round-note' },
              this.state.changes
                ? t.changesSummary(this.state.changes.addedCount, this.state.changes.removedCount)
                : t.unchangedSinceLastRound,
            )
          : null,
        h('label', { class: 'reviewed' }, reviewed, ` ${t.markReviewed}`),
      );
    }
    if (moved) return;
    if (session.status === 'finalized') this.say(t.finalized, 'done');
    else if (session.status === 'cancelled') this.say(t.cancelled, 'done');
    else if (!['reopened', 'error', 'changed'].includes(this.banner.dataset.kind ?? ''))
      this.say(session.waiting ? t.waiting : t.notWaiting, 'info');
  }

  private setMode(mode: State['mode']): void {
    if (this.state.mode === mode) return;
    this.state.mode = mode;
    this.doc.render();
    this.renderChrome();
  }

  private say(text: string, kind: 'info' | 'done' | 'error' | 'reopened'): void {
    this.banner.textContent = text;
    this.banner.dataset.kind = kind;
  }

  /** File `index` on disk is not what the page shows: say so and offer to load it again. */
  private sayChanged(index: number): void {
    const name = this.state.session.files[index]?.file ?? '';
    const reload = h(
      'button',
      { type: 'button', id: 'reload-file', onclick: () => void this.showFile(index) },
      t.reload,
    );
    this.banner.replaceChildren(`${name}: ${t.fileChangedOnDisk} `, reload);
    this.banner.dataset.kind = 'changed';
  }

  /** Compares the files the page showed with the disk; the first that differs is announced. */
  private async checkOnDisk(indexes: number[]): Promise<void> {
    for (const index of indexes) {
      const shown = this.seen.get(index);
      if (shown === undefined) continue;
      const now = await this.state.api.fileHash(index).catch(() => undefined);
      if (now && now.fileContentHash !== shown) return this.sayChanged(index);
    }
  }

  private fail(error: unknown): void {
    if (error instanceof ApiError && isAuthFailure(error)) return showInvalidLink();
    if (error instanceof ApiError && error.status === 410) {
      // Another md-review process serves the review now: this page stays for reading (drafts included).
      window.clearInterval(this.poller);
      this.finalizeButton.disabled = true;
      this.cancelButton.disabled = true;
      document.body.dataset.status = 'moved';
      return this.say(t.moved, 'error');
    }
    this.say(error instanceof ApiError ? error.message : t.offline, 'error');
  }

  private async poll(): Promise<void> {
    let session: SessionView;
    try {
      session = await this.state.api.session();
    } catch (error) {
      return this.fail(error);
    }
    if (this.banner.dataset.kind === 'error') this.banner.dataset.kind = 'info';
    // A round number the page has not shown: another round, even if no poll saw the last one end.
    const reopened = session.round !== this.shownRound;
    this.shownRound = session.round;
    if (session.status === 'open' && !reopened && this.banner.dataset.kind !== 'changed')
      await this.checkOnDisk([this.state.fileIndex]);
    if (
      session.revision === this.state.session.revision &&
      session.waiting === this.state.session.waiting &&
      !reopened
    )
      return;
    this.state.session = session;
    if (reopened) {
      this.seen.clear(); // what was seen last round certifies nothing in this one
      await this.showFile(this.state.fileIndex); // the agent may have changed the file between rounds
      this.say(t.reopened, 'reopened');
    } else if (!this.doc.composerOpen && !this.doc.editingComment) this.doc.renderThreads();
    this.renderChrome();
  }

  private async finalize(): Promise<void> {
    await this.sidebar.saveOverall();
    // Text typed but not added yet is never dropped without asking (audit defect 2).
    const drafts = [this.sidebar.globalInput.value.trim(), this.doc.unsavedDraft].filter((d) => d !== '');
    if (drafts.length > 0) {
      const choice = await choiceDialog(t.draftsTitle, t.draftsBody(drafts.length), [
        { value: 'save', label: t.saveDrafts },
        { value: 'discard', label: t.discardDrafts, danger: true },
      ]);
      if (choice === undefined) return;
      if (choice === 'save' && !((await this.sidebar.addTypedGlobal()) && (await this.doc.saveDraft())))
        return;
      if (choice === 'discard') {
        this.sidebar.globalInput.value = '';
        this.doc.clearSelection();
      }
    }
    const { session } = this.state;
    const body = t.finalizeBody(
      session.summary.comment_count,
      !!session.overall_comment?.trim(),
      session.summary.earlier_comment_count,
    );
    if (!(await confirmDialog(t.finalizeTitle, body, t.finalize))) return;
    const seen = [...this.seen].map(([fileIndex, fileContentHash]) => ({ fileIndex, fileContentHash }));
    if (await this.mutate(() => this.state.api.finalize(seen), true)) this.doc.clearSelection();
    else await this.checkOnDisk([...this.seen.keys()]); // refused: a file changed under the page?
  }

  private async cancel(): Promise<void> {
    if (!(await confirmDialog(t.cancelTitle, t.cancelBody, t.cancelReview, true))) return;
    if (await this.mutate(() => this.state.api.cancel(), true)) this.doc.clearSelection();
  }

  private onKey(event: KeyboardEvent): void {
    if (document.querySelector('.overlay')) return;
    const typing = (event.target as HTMLElement).closest?.('textarea, input, select');
    const mod = event.ctrlKey || event.metaKey;
    if (mod && event.shiftKey && event.key === 'Enter') {
      event.preventDefault();
      if (isOpen(this.state)) void this.finalize();
      return;
    }
    if (event.key === 'Escape') {
      if (this.doc.composerOpen) return void this.doc.dismissComposer();
      if (this.state.selection) this.doc.clearSelection();
      (document.activeElement as HTMLElement | null)?.blur?.();
      return;
    }
    if (typing || mod || event.altKey) return;
    const selection = this.state.selection;
    const here = selection?.focus ?? -1;
    switch (event.key) {
      case 'j':
      case 'J':
        this.doc.select(event.shiftKey && selection ? selection.anchor : here + 1, here + 1, false);
        break;
      case 'k':
      case 'K':
        this.doc.select(
          event.shiftKey && selection ? selection.anchor : Math.max(0, here - 1),
          Math.max(0, here - 1),
          false,
        );
        break;
      case 'c':
      case 'Enter':
        if (!selection || !isOpen(this.state)) return;
        this.doc.openComposer();
        break;
      case '[':
        void this.showFile(this.state.fileIndex - 1);
        break;
      case ']':
        void this.showFile(this.state.fileIndex + 1);
        break;
      case 'r': {
        const entry = this.state.session.files[this.state.fileIndex];
        if (entry && isOpen(this.state))
          void this.mutate(() => this.state.api.setReviewed(entry.index, !entry.reviewed));
        break;
      }
      case 's':
        this.setMode(this.state.mode === 'rendered' ? 'source' : 'rendered');
        break;
      case 'g':
        this.sidebar.globalInput.focus();
        break;
      case 't':
        toggleTheme();
        break;
      case '?':
        helpDialog();
        break;
      default:
        return;
    }
    event.preventDefault();
  }
}

/** Only a refused key makes the link invalid; a 403 for one file (outside the roots, denied) does not. */
function isAuthFailure(error: ApiError): boolean {
  return error.status === 403 && error.code === 'FORBIDDEN';
}

function showInvalidLink(): void {
  document
    .getElementById('app')!
    .replaceWith(
      h(
        'div',
        { id: 'app', class: 'app invalid' },
        h('p', { class: 'banner', 'data-kind': 'error' }, t.invalidLink),
      ),
    );
  document.body.dataset.status = 'invalid';
}

/**
 * The page's address without the person's key (what the agent has): explains where the link with the
 * key is, and takes it pasted.
 */
function showNeedsKey(): void {
  const input = h('input', {
    type: 'text',
    id: 'link-input',
    autocomplete: 'off',
    spellcheck: 'false',
    placeholder: 'http://127.0.0.1:…/review/…#token=…',
    'aria-label': t.pasteLink,
  });
  const problem = h('p', { class: 'problem', role: 'alert' });
  const use = (event: SubmitEvent) => {
    event.preventDefault();
    const target = linkWithKey(input.value.trim());
    if (!target) {
      problem.textContent = t.notALink;
      return;
    }
    location.replace(target);
    location.reload(); // only the fragment changed: load the page again with it
  };
  document
    .getElementById('app')!
    .replaceWith(
      h(
        'div',
        { id: 'app', class: 'app invalid needs-key' },
        h('h1', {}, t.needsKeyTitle),
        h('p', {}, t.needsKeyBody),
        h('ul', {}, ...t.whereIsTheLink.map((where) => h('li', {}, where))),
        h(
          'form',
          { class: 'paste', onsubmit: use },
          input,
          h('button', { type: 'submit', class: 'primary' }, t.open),
        ),
        problem,
      ),
    );
  document.body.dataset.status = 'needs-key';
}

/** This page with the key of a pasted link (or a pasted key), or undefined when it is neither. */
function linkWithKey(text: string): string | undefined {
  if (/^[A-Za-z0-9_-]{20,}$/.test(text)) return `${location.pathname}#token=${text}`;
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return undefined;
  }
  const token = new URLSearchParams(url.hash.slice(1)).get('token');
  // Another review of this server is fine; another server's link is not this page's business.
  if (!token || url.origin !== location.origin || !url.pathname.startsWith('/review/')) return undefined;
  return `${url.pathname}#token=${token}`;
}

async function boot(): Promise<void> {
  initTheme();
  if (/^\/review\/[^/]+$/.test(location.pathname) && !location.hash.includes('token=')) return showNeedsKey();
  const api = Api.fromLocation(location);
  if (!api) return showInvalidLink();
  let session: SessionView;
  // The first file is fetched alongside the session: one round trip less before the page is usable.
  const firstFile = api.file(0);
  firstFile.catch(() => undefined); // its failure is reported by showFile
  try {
    session = await api.session();
  } catch (error) {
    if (error instanceof ApiError && isAuthFailure(error)) return showInvalidLink();
    document.getElementById('app')!.textContent = t.offline;
    return;
  }
  const state: State = {
    api,
    session,
    fileIndex: 0,
    file: undefined,
    mode: 'rendered',
    diffLayout: 'inline',
    changes: undefined,
    units: [],
    selection: undefined,
    editing: undefined,
    draft: '',
  };
  const app = new App(state);
  app.mount();
  await app.showFile(0, firstFile);
  // For tests and the benchmark: the page is rendered and its handlers are attached.
  document.body.dataset.readyAt = performance.now().toFixed(1);
  document.body.dataset.ready = 'true';
}

void boot();

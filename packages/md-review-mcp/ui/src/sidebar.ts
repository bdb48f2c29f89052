import type { SessionView } from './api.js';
import { clear, h } from './dom.js';
import { earlierRound, earlierTag } from './earlier-round.js';
import { t } from './i18n.js';
import { isOpen, type State } from './state.js';

export interface SidebarActions {
  showFile(index: number): void;
  setReviewed(index: number, reviewed: boolean): Promise<void>;
  addGlobal(text: string): Promise<boolean>;
  updateGlobal(id: string, text: string): Promise<boolean>;
  deleteGlobal(id: string): Promise<void>;
  setOverall(text: string): Promise<void>;
}

/** Files with reviewed marks, what to check, global comments and the overall comment. */
export class Sidebar {
  readonly root = h('aside', { class: 'sidebar' });
  private readonly files = h('ul', { class: 'files' });
  private readonly globals = h('div', { class: 'globals' });
  readonly globalInput = h('textarea', {
    rows: 3,
    placeholder: t.globalPlaceholder,
    'aria-label': t.globalComments,
    id: 'global-input',
  });
  readonly overall = h('textarea', {
    rows: 3,
    placeholder: t.overallPlaceholder,
    'aria-label': t.overall,
    id: 'overall-input',
  });
  private overallTimer: number | undefined;
  /** The global comment whose edit box is open: no redraw (a poll, another change) takes its text away. */
  private editing: string | undefined;

  constructor(
    private readonly state: State,
    private readonly actions: SidebarActions,
  ) {
    const instructions = state.session.instructions;
    const addGlobal = async () => {
      if (this.globalInput.value.trim() === '') return this.globalInput.focus();
      await this.addTypedGlobal();
    };
    this.globalInput.addEventListener('keydown', (e) => {
      if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) {
        e.preventDefault();
        void addGlobal();
      }
    });
    this.overall.value = state.session.overall_comment ?? '';
    this.overall.addEventListener('input', () => {
      window.clearTimeout(this.overallTimer);
      this.overallTimer = window.setTimeout(() => void this.saveOverall(), 700);
    });
    this.overall.addEventListener('blur', () => void this.saveOverall());
    this.root.append(
      h('section', {}, h('h2', {}, t.files), this.files),
      h(
        'section',
        { class: 'instructions' },
        h('h2', {}, t.instructions),
        instructions
          ? h('p', { class: 'pre' }, instructions)
          : h('ul', { class: 'checklist' }, ...t.defaultChecklist.map((item) => h('li', {}, item))),
      ),
      h(
        'section',
        {},
        h('h2', {}, t.globalComments),
        this.globals,
        h(
          'form',
          { class: 'global-form', onsubmit: (e: SubmitEvent) => (e.preventDefault(), void addGlobal()) },
          this.globalInput,
          h('button', { type: 'submit', class: 'primary' }, t.addGlobal),
        ),
      ),
      h('section', {}, h('h2', {}, t.overall), this.overall),
    );
  }

  /** Adds what the global comment box holds; true when it was empty or is saved now. */
  async addTypedGlobal(): Promise<boolean> {
    const text = this.globalInput.value;
    if (text.trim() === '') return true;
    if (!(await this.actions.addGlobal(text))) return false;
    this.globalInput.value = '';
    return true;
  }

  /** Saves the overall comment once the person stops typing (or leaves the box). */
  async saveOverall(): Promise<void> {
    window.clearTimeout(this.overallTimer);
    const current = this.state.session.overall_comment ?? '';
    if (this.overall.value !== current && isOpen(this.state))
      await this.actions.setOverall(this.overall.value);
  }

  render(session: SessionView): void {
    const open = isOpen(this.state);
    clear(this.files);
    for (const file of session.files) {
      const count = session.inline_comments.filter((c) => c.fileIndex === file.index).length;
      const box = h('input', {
        type: 'checkbox',
        checked: file.reviewed,
        disabled: !open,
        'aria-label': `${t.reviewed}: ${file.file}`,
      });
      box.addEventListener('change', () => void this.actions.setReviewed(file.index, box.checked));
      this.files.append(
        h(
          'li',
          {
            class: file.index === this.state.fileIndex ? 'current' : undefined,
            'data-reviewed': file.reviewed ? 'true' : undefined,
          },
          box,
          h(
            'button',
            {
              type: 'button',
              class: 'file',
              title: file.file,
              onclick: () => this.actions.showFile(file.index),
            },
            h('span', { class: 'name' }, file.file),
            count > 0 ? h('span', { class: 'count' }, String(count)) : null,
            file.reviewed ? h('span', { class: 'check', title: t.reviewed }, '✓') : null,
          ),
        ),
      );
    }
    if (this.editing !== undefined && session.global_comments.some((c) => c.id === this.editing)) {
      this.renderControls(session, open);
      return;
    }
    this.editing = undefined;
    clear(this.globals);
    for (const comment of session.global_comments) {
      const card = h(
        'article',
        { class: 'comment global', 'data-id': comment.id },
        earlierTag(earlierRound(comment, session)),
        h('p', { class: 'text' }, comment.comment),
        open
          ? h(
              'div',
              { class: 'tools' },
              h(
                'button',
                {
                  type: 'button',
                  class: 'link',
                  onclick: () => this.edit(card, comment.id, comment.comment),
                },
                t.edit,
              ),
              h(
                'button',
                {
                  type: 'button',
                  class: 'link danger',
                  onclick: () => void this.actions.deleteGlobal(comment.id),
                },
                t.delete,
              ),
            )
          : null,
      );
      this.globals.append(card);
    }
    this.renderControls(session, open);
  }

  private renderControls(session: SessionView, open: boolean): void {
    for (const control of [this.globalInput, this.overall]) control.disabled = !open;
    (this.root.querySelector('.global-form button') as HTMLButtonElement).disabled = !open;
    if (document.activeElement !== this.overall) this.overall.value = session.overall_comment ?? '';
  }

  private stopEditing(): void {
    this.editing = undefined;
    this.render(this.state.session);
  }

  private edit(card: HTMLElement, id: string, text: string): void {
    const box = h('textarea', { rows: 3, 'aria-label': t.globalComments });
    box.value = text;
    this.editing = id;
    const save = async () => {
      if (box.value.trim() !== '' && (await this.actions.updateGlobal(id, box.value))) this.stopEditing();
    };
    card.replaceChildren(
      h(
        'form',
        { class: 'composer', onsubmit: (e: SubmitEvent) => (e.preventDefault(), void save()) },
        box,
        h(
          'div',
          { class: 'actions' },
          h('button', { type: 'button', onclick: () => this.stopEditing() }, t.cancel),
          h('button', { type: 'submit', class: 'primary' }, t.save),
        ),
      ),
    );
    box.focus();
  }
}

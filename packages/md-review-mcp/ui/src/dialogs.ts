import { h } from './dom.js';
import { t } from './i18n.js';

/** A modal question with one confirming and one going-back button; resolves true when confirmed. */
export async function confirmDialog(
  title: string,
  body: string,
  confirmLabel: string,
  danger = false,
): Promise<boolean> {
  return (await choiceDialog(title, body, [{ value: 'confirm', label: confirmLabel, danger }])) === 'confirm';
}

/**
 * A modal question with several answers besides going back: resolves the chosen answer's value, or
 * undefined for Back / Escape. The first choice has the focus.
 */
export function choiceDialog<T extends string>(
  title: string,
  body: string,
  choices: Array<{ value: T; label: string; danger?: boolean }>,
): Promise<T | undefined> {
  return new Promise((resolve) => {
    const close = (answer: T | undefined) => {
      overlay.remove();
      document.removeEventListener('keydown', onKey, true);
      resolve(answer);
    };
    const onKey = (event: KeyboardEvent) => {
      if (event.key === 'Escape') {
        event.stopPropagation();
        close(undefined);
      }
    };
    const buttons = choices.map((choice, i) =>
      h(
        'button',
        {
          class: choice.danger ? 'danger' : i === 0 ? 'primary' : undefined,
          'data-action': choice.value,
          onclick: () => close(choice.value),
        },
        choice.label,
      ),
    );
    const overlay = h(
      'div',
      { class: 'overlay', role: 'dialog', 'aria-modal': 'true', 'aria-label': title },
      h(
        'div',
        { class: 'dialog' },
        h('h2', {}, title),
        h('p', {}, body),
        h(
          'div',
          { class: 'actions' },
          h('button', { 'data-action': 'back', onclick: () => close(undefined) }, t.back),
          ...buttons,
        ),
      ),
    );
    document.body.append(overlay);
    document.addEventListener('keydown', onKey, true);
    buttons[0]?.focus();
  });
}

export function helpDialog(): void {
  const close = () => overlay.remove();
  const overlay = h(
    'div',
    {
      class: 'overlay',
      role: 'dialog',
      'aria-modal': 'true',
      'aria-label': t.help,
      onclick: (e: MouseEvent) => e.target === overlay && close(),
    },
    h(
      'div',
      { class: 'dialog help' },
      h('h2', {}, t.help),
      h(
        'table',
        {},
        h(
          'tbody',
          {},
          ...t.shortcuts.map(([keys, what]) =>
            h('tr', {}, h('td', {}, h('kbd', {}, keys)), h('td', {}, what)),
          ),
        ),
      ),
      h('div', { class: 'actions' }, h('button', { class: 'primary', onclick: close }, t.close)),
    ),
  );
  document.body.append(overlay);
  (overlay.querySelector('button.primary') as HTMLButtonElement).focus();
  overlay.addEventListener('keydown', (e) => {
    if (e.key === 'Escape') {
      e.stopPropagation();
      close();
    }
  });
}

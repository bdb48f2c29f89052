// Mermaid diagrams in ```mermaid fences. Mermaid is large, so it loads only when a document has one.
// Each diagram becomes an SVG shown as an image: an image runs no script and loads nothing, and its own
// styles apply inside it, so the page's strict CSP stays as it is. The fence's lines keep their row
// (select the diagram to comment on it; the Source view has one row per line).
import { h } from './dom.js';
import { t } from './i18n.js';

type Mermaid = (typeof import('mermaid'))['default'];

const SELECTOR = 'pre > code.language-mermaid:not([data-diagram])';
let mermaid: Promise<Mermaid> | undefined;
let counter = 0;

function load(): Promise<Mermaid> {
  mermaid ??= import('mermaid').then(({ default: m }) => {
    m.initialize({
      startOnLoad: false,
      layout: 'dagre', // the ELK engine is not shipped (see stubs/elk.ts)
      securityLevel: 'strict',
      theme: document.documentElement.dataset.theme === 'dark' ? 'dark' : 'default',
    });
    return m;
  });
  return mermaid;
}

/** True when `root` has a diagram not rendered yet. */
export function hasDiagrams(root: ParentNode): boolean {
  return root.querySelector(SELECTOR) !== null;
}

/** Renders the diagrams under `root`, one after another (each its own task); stops when `current()` is false. */
export async function renderDiagramsIn(root: ParentNode, current: () => boolean): Promise<void> {
  if (!hasDiagrams(root)) return;
  const m = await load();
  for (const code of Array.from(root.querySelectorAll<HTMLElement>(SELECTOR))) {
    if (!current()) return;
    code.dataset.diagram = 'rendering';
    const pre = code.parentElement!;
    try {
      const { svg } = await m.render(`md-review-diagram-${++counter}`, code.textContent ?? '');
      pre.before(figure(svg, pre));
      pre.hidden = true;
      code.dataset.diagram = 'done';
    } catch (error) {
      // The source stays visible, with what mermaid said.
      pre.before(
        h(
          'p',
          { class: 'diagram-error', role: 'note' },
          `${t.diagramFailed}: ${String((error as Error).message ?? error).split('\n')[0]}`,
        ),
      );
      code.dataset.diagram = 'failed';
    }
    await new Promise((resolve) => setTimeout(resolve, 0)); // input between diagrams
  }
}

function figure(svg: string, pre: HTMLElement): HTMLElement {
  // The image's size comes from the diagram's viewBox (mermaid writes width="100%").
  const box = /viewBox="[-\d.]+ [-\d.]+ ([\d.]+) ([\d.]+)"/.exec(svg);
  const sized = box
    ? svg.replace(/<svg([^>]*?) width="100%"/, `<svg$1 width="${box[1]}" height="${box[2]}"`)
    : svg;
  const image = h('img', {
    class: 'diagram-image',
    alt: t.diagram,
    src: `data:image/svg+xml;charset=utf-8,${encodeURIComponent(sized)}`,
  });
  if (box) {
    image.width = Math.ceil(Number(box[1]));
    image.height = Math.ceil(Number(box[2]));
  }
  const toggle = h(
    'button',
    {
      type: 'button',
      class: 'link diagram-toggle',
      'aria-expanded': 'false',
      onclick: () => {
        pre.hidden = !pre.hidden;
        toggle.setAttribute('aria-expanded', String(!pre.hidden));
      },
    },
    t.diagramSource,
  );
  return h('figure', { class: 'diagram' }, image, h('figcaption', {}, toggle));
}

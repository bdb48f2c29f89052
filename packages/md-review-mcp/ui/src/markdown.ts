import DOMPurify from 'dompurify';
import MarkdownIt, { type Token } from 'markdown-it';
import taskLists from 'markdown-it-task-lists';
import { t } from './i18n.js';

type Highlighter = typeof import('highlight.js/lib/common').default;

/**
 * highlight.js is most of the page's code, so it loads after the first screen: blocks rendered before
 * it arrives are highlighted in place (see highlightIn), later ones as they are rendered.
 */
let highlighter: Highlighter | undefined;
export const highlighterReady: Promise<void> = import('highlight.js/lib/common').then((module) => {
  highlighter = module.default;
});

/** Highlights the code blocks under `root` that were rendered before highlight.js arrived. */
export function highlightIn(root: ParentNode): void {
  if (!highlighter) return;
  for (const code of Array.from(
    root.querySelectorAll<HTMLElement>('pre > code[class^="language-"]:not([data-hl])'),
  )) {
    const language = code.className.slice('language-'.length).split(/\s/)[0]!;
    code.dataset.hl = '1';
    if (!highlighter.getLanguage(language)) continue;
    const html = highlighter.highlight(code.textContent ?? '', { language, ignoreIllegals: true }).value;
    code.replaceChildren(DOMPurify.sanitize(html, { RETURN_DOM_FRAGMENT: true }));
  }
}

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

// Raw HTML off: a document can show markup, never run it. DOMPurify cleans the output as well.
const md = new MarkdownIt({
  html: false,
  // Bare URLs stay text: linkify multiplies the parse time of a big document by 5–10 (autolinks
  // <https://…> and [links](…) work).
  linkify: false,
  typographer: false,
  highlight(code, info) {
    const language = info.trim().split(/\s+/)[0]?.toLowerCase() ?? '';
    // Only named languages: guessing one is slow on big documents and often wrong.
    if (language && highlighter?.getLanguage(language)) {
      try {
        return highlighter.highlight(code, { language, ignoreIllegals: true }).value;
      } catch {
        // fall through to plain text
      }
    }
    return escapeHtml(code);
  },
});

// GFM task lists (`- [ ]`, `- [x]`) as read-only checkboxes.
md.use(taskLists, { enabled: false });

// Table alignment as classes: markdown-it writes `style="text-align:…"`, which the page's CSP blocks.
md.core.ruler.push('align_classes', (state) => {
  for (const token of state.tokens) {
    if (token.type !== 'th_open' && token.type !== 'td_open') continue;
    const align = /text-align:\s*(left|center|right)/.exec(String(token.attrGet('style') ?? ''))?.[1];
    if (!align) continue;
    token.attrs = (token.attrs ?? []).filter(([name]) => name !== 'style');
    token.attrJoin('class', `align-${align}`);
  }
});

// Images are not fetched (the page loads nothing from outside, and serves no file but the reviewed
// ones): they show as a labelled placeholder with their address.
md.renderer.rules.image = (tokens, idx) => {
  const token = tokens[idx]!;
  const alt = token.children?.map((c) => c.content).join('') ?? '';
  const src = String(token.attrGet('src') ?? '');
  return `<span class="image-placeholder" title="${escapeHtml(src)}">[${escapeHtml(t.image)}: ${escapeHtml(alt || src)}]</span>`;
};

// The only inputs are the task lists' checkboxes (raw HTML is off): anything else goes, and they stay read-only.
DOMPurify.addHook('uponSanitizeElement', (node, data) => {
  if (data.tagName === 'input' && (node as Element).getAttribute('type') !== 'checkbox')
    node.parentNode?.removeChild(node);
});

DOMPurify.addHook('afterSanitizeAttributes', (node) => {
  if (node.tagName === 'INPUT') {
    node.setAttribute('disabled', '');
    node.setAttribute('tabindex', '-1');
    return;
  }
  if (node.tagName !== 'A') return;
  const href = node.getAttribute('href') ?? '';
  if (/^(https?:|mailto:)/i.test(href)) {
    // Never navigate the review page away: links open outside it.
    node.setAttribute('target', '_blank');
    node.setAttribute('rel', 'noopener noreferrer');
  } else {
    node.removeAttribute('href'); // relative links point at files this page cannot show
    if (href) node.setAttribute('title', href);
  }
});

/** Splits the token stream into top-level blocks (a heading, a paragraph, a whole list, a table, …). */
function topLevelGroups(tokens: Token[]): Array<{ tokens: Token[]; map: [number, number] }> {
  const groups: Array<{ tokens: Token[]; map: [number, number] }> = [];
  let i = 0;
  while (i < tokens.length) {
    const first = tokens[i]!;
    let j = i;
    if (first.nesting === 1) {
      let depth = 0;
      for (; j < tokens.length; j++) {
        depth += tokens[j]!.nesting;
        if (depth === 0) break;
      }
    }
    const map = first.map ?? groups[groups.length - 1]?.map ?? [0, 1];
    groups.push({ tokens: tokens.slice(i, j + 1), map: [map[0], map[1]] });
    i = j + 1;
  }
  return groups;
}

/** A top-level block before it becomes DOM: its lines and how to render it (done per slice, lazily). */
export interface BlockSource {
  start: number;
  end: number;
  html(): string;
}

/** The start of a document for its first screen: whole lines up to a blank line outside code fences. */
export function headOf(source: string, minLines: number): string | undefined {
  let fence: string | undefined;
  let line = 0;
  for (let at = 0; at < source.length;) {
    const next = source.indexOf('\n', at);
    const end = next < 0 ? source.length : next;
    const text = source.slice(at, end).replace(/\r$/, '');
    line++;
    const marker = /^ {0,3}(`{3,}|~{3,})/.exec(text)?.[1];
    if (marker && (!fence || (marker[0] === fence[0] && marker.length >= fence.length)))
      fence = fence ? undefined : marker;
    if (!fence && line >= minLines && text.trim() === '' && next >= 0) return source.slice(0, next + 1);
    if (next < 0) break;
    at = next + 1;
  }
  return undefined;
}

/** Parses a document into its top-level blocks, each with its source line range (1-based, inclusive). */
export function parseBlocks(source: string): BlockSource[] & { hasReferences?: boolean } {
  const env: Record<string, unknown> = {};
  const groups = topLevelGroups(md.parse(source, env));
  const blocks: BlockSource[] & { hasReferences?: boolean } = groups.map((group) => ({
    // markdown-it maps are 0-based [start, end); a block's last line is end, 1-based.
    start: group.map[0] + 1,
    end: Math.max(group.map[0] + 1, trimTrailingBlank(source, group.map)),
    html: () => md.renderer.render(group.tokens, md.options, env),
  }));
  blocks.hasReferences = Object.keys((env.references as object | undefined) ?? {}).length > 0;
  return blocks;
}

/**
 * Turns blocks into sanitized elements. One sanitizer pass per batch (not per block) keeps a
 * 5,000-line document fast.
 */
export function blockElements(blocks: readonly BlockSource[]): HTMLElement[] {
  const html = blocks.map((block) => `<section>${block.html()}</section>`).join('');
  const fragment = DOMPurify.sanitize(html, {
    RETURN_DOM_FRAGMENT: true,
    FORBID_TAGS: ['style', 'form', 'textarea', 'button', 'select'],
  });
  const elements = Array.from(fragment.children, (section) => {
    const element = section as HTMLElement;
    element.className = 'block markdown-body';
    return element;
  });
  // markdown-it's output is balanced, so each block is one section; if not, sanitize one by one.
  if (elements.length !== blocks.length && blocks.length > 1)
    return blocks.flatMap((block) => blockElements([block]));
  return elements;
}

let sourceLines: string[] = [];
let linesOf = '';

/** A block's map can end on blank lines after it; the range the person selects stops at its text. */
function trimTrailingBlank(source: string, map: [number, number]): number {
  if (linesOf !== source) {
    sourceLines = source.split(/\r\n|\n|\r/);
    linesOf = source;
  }
  let end = map[1];
  while (end > map[0] + 1 && (sourceLines[end - 1] ?? '').trim() === '') end--;
  return end;
}

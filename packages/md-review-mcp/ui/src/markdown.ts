import DOMPurify from 'dompurify';
import hljs from 'highlight.js/lib/common';
import MarkdownIt, { type Token } from 'markdown-it';
import { t } from './i18n.js';

/** One top-level block of the document and the source lines it came from (1-based, inclusive). */
export interface Block {
  start: number;
  end: number;
  element: HTMLElement;
}

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

// Raw HTML off: a document can show markup, never run it. DOMPurify cleans the output as well.
const md = new MarkdownIt({
  html: false,
  linkify: true,
  typographer: false,
  highlight(code, info) {
    const language = info.trim().split(/\s+/)[0]?.toLowerCase() ?? '';
    // Only named languages: guessing one is slow on big documents and often wrong.
    if (language && hljs.getLanguage(language)) {
      try {
        return hljs.highlight(code, { language, ignoreIllegals: true }).value;
      } catch {
        // fall through to plain text
      }
    }
    return escapeHtml(code);
  },
});

// Images are not fetched (the page loads nothing from outside, and serves no file but the reviewed
// ones): they show as a labelled placeholder with their address.
md.renderer.rules.image = (tokens, idx) => {
  const token = tokens[idx]!;
  const alt = token.children?.map((c) => c.content).join('') ?? '';
  const src = String(token.attrGet('src') ?? '');
  return `<span class="image-placeholder" title="${escapeHtml(src)}">[${escapeHtml(t.image)}: ${escapeHtml(alt || src)}]</span>`;
};

DOMPurify.addHook('afterSanitizeAttributes', (node) => {
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

/**
 * Renders Markdown into blocks, each carrying its source line range. One sanitizer pass over the whole
 * document (not one per block) keeps a 5,000-line file fast.
 */
export function renderBlocks(source: string): Block[] {
  const env = {};
  const tokens = md.parse(source, env);
  const groups = topLevelGroups(tokens);
  const html = groups
    .map(
      (group, i) => `<section data-i="${i}">${md.renderer.render(group.tokens, md.options, env)}</section>`,
    )
    .join('');
  const fragment = DOMPurify.sanitize(html, {
    RETURN_DOM_FRAGMENT: true,
    FORBID_TAGS: ['style', 'form', 'input', 'textarea', 'button'],
  });
  const blocks: Block[] = [];
  for (const section of Array.from(fragment.children)) {
    const group = groups[Number((section as HTMLElement).dataset.i)];
    if (!group) continue;
    const element = section as HTMLElement;
    element.removeAttribute('data-i');
    element.className = 'block markdown-body';
    // markdown-it maps are 0-based [start, end); a block's last line is end, 1-based.
    blocks.push({
      start: group.map[0] + 1,
      end: Math.max(group.map[0] + 1, trimTrailingBlank(source, group.map)),
      element,
    });
  }
  return blocks;
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

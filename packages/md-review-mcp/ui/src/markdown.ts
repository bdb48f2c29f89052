import DOMPurify from 'dompurify';
import MarkdownIt, { type Token } from 'markdown-it';
import taskLists from 'markdown-it-task-lists';
import { chunksOf } from './chunks.js';
import { CODE_LANGUAGES, codeLanguageOf } from './code-languages.js';
import { t } from './i18n.js';

type Highlighter = typeof import('highlight.js/lib/core').default;

/**
 * highlight.js is loaded only for documents with code, and only the languages their fences name (its
 * core and each language are chunks of their own), after the first screen: blocks rendered before a
 * language arrives are highlighted in place (see highlightSoon), later ones as they are rendered. Each
 * language is registered, then compiled, in tasks of their own, so loading never blocks input.
 */
let highlighter: Highlighter | undefined;
let core: Promise<Highlighter> | undefined;
const languages = new Map<string, Promise<void>>();

/** Loads and registers the named languages (see codeLanguagesIn); resolves when all are usable. */
export function loadCodeLanguages(names: Iterable<string>): Promise<void> {
  const wanted = [...names].filter((name) => CODE_LANGUAGES[name]);
  if (wanted.length === 0) return Promise.resolve();
  core ??= import('highlight.js/lib/core').then((module) => module.default);
  return Promise.all(
    wanted.map((name) => {
      let loaded = languages.get(name);
      if (!loaded) {
        loaded = Promise.all([core!, CODE_LANGUAGES[name]!.load()]).then(
          async ([hljs, language]) => {
            await nextTask();
            hljs.registerLanguage(name, language.default);
            // highlight.js compiles a language's patterns on its first use (TypeScript's take ~25 ms):
            // done here, in a task of its own, not in the first slice that highlights a block.
            await nextTask();
            hljs.highlight('', { language: name, ignoreIllegals: true });
            highlighter = hljs;
          },
          () => undefined, // a chunk that did not load: its blocks stay plain text
        );
        languages.set(name, loaded);
      }
      return loaded;
    }),
  ).then(() => undefined);
}

const nextTask = () => new Promise<void>((resolve) => setTimeout(resolve, 0));

/**
 * Highlights the code blocks under `root` that were rendered before highlight.js arrived, a few at a
 * time between tasks (a big document has hundreds); stops when `current()` turns false.
 */
export function highlightSoon(root: ParentNode, current: () => boolean): void {
  if (!highlighter || !current()) return;
  const deadline = performance.now() + 8;
  for (const code of Array.from(
    root.querySelectorAll<HTMLElement>('pre > code[class^="language-"]:not([data-hl])'),
  )) {
    if (performance.now() > deadline) {
      setTimeout(() => highlightSoon(root, current), 0);
      return;
    }
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
    const language = codeLanguageOf(info.trim().split(/\s+/)[0] ?? '');
    // Only named languages: guessing one is slow on big documents and often wrong.
    if (language && highlighter?.getLanguage(language)) {
      try {
        // Marked as highlighted, so highlightSoon leaves it alone.
        const html = highlighter.highlight(code, { language, ignoreIllegals: true }).value;
        return `<pre><code class="language-${escapeHtml(language)}" data-hl="1">${html}</code></pre>`;
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

/** The link reference definitions of a whole document (`[name]: url`), for pieces parsed alone. */
function referencesOf(source: string): Record<string, unknown> {
  const definitions = source.split(/\r?\n/).filter((line) => /^ {0,3}\[[^\]]+\]:\s*\S/.test(line));
  if (definitions.length === 0) return {};
  const env: Record<string, unknown> = {};
  md.parse(definitions.join('\n\n'), env);
  return (env.references as Record<string, unknown> | undefined) ?? {};
}

/**
 * A document's blocks, parsed a piece at a time (see chunksOf), so a big document never blocks the page
 * for long; line numbers are the whole document's.
 */
export class BlockStream {
  private readonly chunks: Array<{ offset: number; text: string }>;
  private readonly references: Record<string, unknown>;
  private next = 0;

  constructor(source: string) {
    this.chunks = chunksOf(source);
    this.references = referencesOf(source);
  }

  get done(): boolean {
    return this.next >= this.chunks.length;
  }

  /** The blocks of the next piece. */
  take(): BlockSource[] {
    const chunk = this.chunks[this.next++];
    return chunk ? parseBlocks(chunk.text, chunk.offset, { references: this.references }) : [];
  }
}

/** Parses a document (or a piece of one starting at line `offset` + 1) into its top-level blocks. */
export function parseBlocks(source: string, offset = 0, env: Record<string, unknown> = {}): BlockSource[] {
  const groups = topLevelGroups(md.parse(source, env));
  const lines = source.split(/\r\n|\n|\r/);
  return groups.map((group) => ({
    // markdown-it maps are 0-based [start, end); a block's last line is end, 1-based.
    start: offset + group.map[0] + 1,
    end: offset + Math.max(group.map[0] + 1, trimTrailingBlank(lines, group.map)),
    html: () => md.renderer.render(group.tokens, md.options, env),
  }));
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

/** A block's map can end on blank lines after it; the range the person selects stops at its text. */
function trimTrailingBlank(lines: readonly string[], map: [number, number]): number {
  let end = map[1];
  while (end > map[0] + 1 && (lines[end - 1] ?? '').trim() === '') end--;
  return end;
}

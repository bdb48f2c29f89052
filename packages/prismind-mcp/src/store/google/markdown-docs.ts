import type { docs_v1 } from '@googleapis/docs';
import { Lexer, type Token, type Tokens } from 'marked';

/**
 * Markdown ↔ Google Docs. Writing maps headings to HEADING_1–6, lists to bulleted or numbered
 * paragraphs (nesting kept), fenced code to monospace paragraphs, tables to Docs tables (header row
 * bold) and inline bold/italic/code/links to text styles. Reading turns a Docs document back into
 * Markdown-ish text: headings, paragraphs, lists, code, tables.
 */

export const CODE_FONT = 'Roboto Mono';
const MONOSPACE = new Set([
  'roboto mono',
  'courier new',
  'consolas',
  'source code pro',
  'inconsolata',
  'courier',
]);

interface Run {
  text: string;
  bold?: boolean;
  italic?: boolean;
  code?: boolean;
  link?: string;
}

type Paragraph = {
  runs: Run[];
  style: 'NORMAL_TEXT' | `HEADING_${1 | 2 | 3 | 4 | 5 | 6}`;
  list?: { ordered: boolean; level: number; first?: boolean };
  code?: boolean;
};

type Block = { kind: 'paragraphs'; paragraphs: Paragraph[] } | { kind: 'table'; rows: Run[][][] };

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: '\u00a0' };

function decode(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (all, name: string) => {
    if (name[0] === '#') {
      const code =
        name[1] === 'x' || name[1] === 'X' ? parseInt(name.slice(2), 16) : parseInt(name.slice(1), 10);
      return Number.isFinite(code) && code > 0 && code < 0x110000 ? String.fromCodePoint(code) : all;
    }
    return ENTITIES[name.toLowerCase()] ?? all;
  });
}

function inlineRuns(tokens: Token[] | undefined, marks: Omit<Run, 'text'> = {}): Run[] {
  const out: Run[] = [];
  for (const token of tokens ?? []) {
    switch (token.type) {
      case 'strong':
        out.push(...inlineRuns((token as Tokens.Strong).tokens, { ...marks, bold: true }));
        break;
      case 'em':
        out.push(...inlineRuns((token as Tokens.Em).tokens, { ...marks, italic: true }));
        break;
      case 'del':
        out.push(...inlineRuns((token as Tokens.Del).tokens, marks));
        break;
      case 'codespan':
        out.push({ ...marks, code: true, text: decode((token as Tokens.Codespan).text) });
        break;
      case 'link':
        out.push(
          ...inlineRuns((token as Tokens.Link).tokens, { ...marks, link: (token as Tokens.Link).href }),
        );
        break;
      case 'image':
        out.push({
          ...marks,
          text: (token as Tokens.Image).text || (token as Tokens.Image).href,
          link: (token as Tokens.Image).href,
        });
        break;
      case 'br':
        out.push({ ...marks, text: '\u000b' }); // a line break inside the paragraph
        break;
      case 'text': {
        const t = token as Tokens.Text;
        if (t.tokens && t.tokens.length > 0) out.push(...inlineRuns(t.tokens, marks));
        else out.push({ ...marks, text: decode(t.text) });
        break;
      }
      case 'escape':
        out.push({ ...marks, text: (token as Tokens.Escape).text });
        break;
      default:
        out.push({ ...marks, text: decode((token as { text?: string }).text ?? token.raw) });
    }
  }
  // Newlines inside a paragraph are soft breaks: a space keeps the paragraph one paragraph.
  return out.map((r) => ({ ...r, text: r.text.replace(/\r?\n/g, ' ') })).filter((r) => r.text !== '');
}

function listParagraphs(list: Tokens.List, level: number, into: Paragraph[]): void {
  const start = into.length;
  for (const item of list.items) {
    const runs: Run[] = [];
    const nested: Tokens.List[] = [];
    for (const token of item.tokens) {
      if (token.type === 'list') nested.push(token as Tokens.List);
      else if (token.type === 'text' || token.type === 'paragraph') {
        if (runs.length > 0) runs.push({ text: ' ' });
        runs.push(
          ...inlineRuns(
            (token as Tokens.Text).tokens ?? [
              { type: 'text', raw: token.raw, text: (token as Tokens.Text).text },
            ],
          ),
        );
      } else runs.push({ text: decode(token.raw.trim()) });
    }
    if (item.task) runs.unshift({ text: item.checked ? '[x] ' : '[ ] ' });
    into.push({
      runs: runs.length ? runs : [{ text: ' ' }],
      style: 'NORMAL_TEXT',
      list: { ordered: list.ordered, level: Math.min(level, 8) },
    });
    for (const sub of nested) listParagraphs(sub, level + 1, into);
  }
  if (level === 0 && into[start]?.list) into[start].list.first = true;
}

/** Markdown → blocks of paragraphs and tables. */
export function parseMarkdown(markdown: string): Block[] {
  const blocks: Block[] = [];
  const paragraphs = (list: Paragraph[]) => {
    const last = blocks[blocks.length - 1];
    if (last?.kind === 'paragraphs') last.paragraphs.push(...list);
    else blocks.push({ kind: 'paragraphs', paragraphs: list });
  };
  const walk = (tokens: Token[]) => {
    for (const token of tokens) {
      switch (token.type) {
        case 'space':
          break;
        case 'heading': {
          const h = token as Tokens.Heading;
          paragraphs([
            { runs: inlineRuns(h.tokens), style: `HEADING_${Math.min(Math.max(h.depth, 1), 6) as 1}` },
          ]);
          break;
        }
        case 'paragraph':
          paragraphs([{ runs: inlineRuns((token as Tokens.Paragraph).tokens), style: 'NORMAL_TEXT' }]);
          break;
        case 'list': {
          const list: Paragraph[] = [];
          listParagraphs(token as Tokens.List, 0, list);
          paragraphs(list);
          break;
        }
        case 'code': {
          const lines = (token as Tokens.Code).text.replace(/\r\n/g, '\n').split('\n');
          // An empty line of code is a monospace space: a paragraph of nothing would leave the block.
          paragraphs(
            lines.map((line) => ({
              runs: [{ text: line || ' ', code: true }],
              style: 'NORMAL_TEXT',
              code: true,
            })),
          );
          break;
        }
        case 'table': {
          const t = token as Tokens.Table;
          const rows = [t.header, ...t.rows].map((row) =>
            row.map((c, i) =>
              inlineRuns(c.tokens).map((r) => (row === t.header || i < 0 ? { ...r, bold: true } : r)),
            ),
          );
          blocks.push({ kind: 'table', rows });
          break;
        }
        case 'blockquote':
          walk((token as Tokens.Blockquote).tokens);
          break;
        case 'hr':
          paragraphs([{ runs: [{ text: '―――' }], style: 'NORMAL_TEXT' }]);
          break;
        default: {
          const text = decode(token.raw.trim());
          if (text) paragraphs([{ runs: [{ text }], style: 'NORMAL_TEXT' }]);
        }
      }
    }
  };
  walk(Lexer.lex(markdown.replace(/\r\n/g, '\n')));
  return blocks;
}

function textStyleOf(run: Run): { textStyle: docs_v1.Schema$TextStyle; fields: string } {
  return {
    textStyle: {
      ...(run.bold ? { bold: true } : {}),
      ...(run.italic ? { italic: true } : {}),
      ...(run.link ? { link: { url: run.link } } : {}),
      ...(run.code ? { weightedFontFamily: { fontFamily: CODE_FONT } } : {}),
    },
    fields: 'bold,italic,link,weightedFontFamily',
  };
}

const range = (startIndex: number, endIndex: number) => ({ startIndex, endIndex });

/** UTF-16 length: Docs indexes count UTF-16 code units. */
const len = (text: string) => text.length;

/**
 * Requests that insert the Markdown at `at`, the start of the document's last (empty) paragraph: after
 * a new document's index 1, or after a paragraph break appended to an existing one. Each block is
 * inserted in order, styled explicitly (inserted text inherits the style of where it lands), and the
 * bullets are made last, from the end backwards, because making them removes the nesting tabs.
 */
export function insertRequests(markdown: string, at: number): docs_v1.Schema$Request[] {
  const requests: docs_v1.Schema$Request[] = [];
  const bullets: docs_v1.Schema$Request[] = [];
  let cursor = at;
  const styleRuns = (start: number, runs: Run[]) => {
    let i = start;
    for (const run of runs) {
      const l = len(run.text);
      if (run.bold || run.italic || run.link || run.code)
        requests.push({ updateTextStyle: { range: range(i, i + l), ...textStyleOf(run) } });
      i += l;
    }
  };
  for (const block of parseMarkdown(markdown)) {
    if (block.kind === 'paragraphs') {
      const start = cursor;
      const texts = block.paragraphs.map(
        (p) => '\t'.repeat(p.list?.level ?? 0) + p.runs.map((r) => r.text).join(''),
      );
      const text = texts.map((t) => `${t}\n`).join('');
      requests.push({ insertText: { location: { index: cursor }, text } });
      const end = start + len(text);
      // What it inherited from the paragraph it landed in is reset; then each paragraph gets its style.
      requests.push({ deleteParagraphBullets: { range: range(start, end) } });
      requests.push({
        updateTextStyle: {
          range: range(start, end),
          textStyle: {},
          fields: 'bold,italic,link,weightedFontFamily',
        },
      });
      let p = start;
      block.paragraphs.forEach((paragraph, i) => {
        const pEnd = p + len(texts[i]!) + 1;
        requests.push({
          updateParagraphStyle: {
            range: range(p, pEnd),
            paragraphStyle: { namedStyleType: paragraph.style },
            fields: 'namedStyleType',
          },
        });
        styleRuns(p + (paragraph.list?.level ?? 0), paragraph.runs);
        p = pEnd;
      });
      // Consecutive items of one list become one Docs list.
      let i = 0;
      p = start;
      while (i < block.paragraphs.length) {
        const paragraph = block.paragraphs[i]!;
        const pStart = p;
        p += len(texts[i]!) + 1;
        i++;
        if (!paragraph.list) continue;
        let j = i;
        while (
          j < block.paragraphs.length &&
          block.paragraphs[j]!.list &&
          !block.paragraphs[j]!.list!.first
        ) {
          p += len(texts[j]!) + 1;
          j++;
        }
        bullets.unshift({
          createParagraphBullets: {
            range: range(pStart, p),
            bulletPreset: paragraph.list.ordered
              ? 'NUMBERED_DECIMAL_ALPHA_ROMAN'
              : 'BULLET_DISC_CIRCLE_SQUARE',
          },
        });
        i = j;
      }
      cursor = end;
    } else {
      const rows = block.rows.length;
      const columns = Math.max(1, ...block.rows.map((r) => r.length));
      requests.push({ insertTable: { rows, columns, location: { index: cursor } } });
      // A newline goes in before the table, so the table starts one further on.
      const table = cursor + 1;
      const rowLength = 1 + 2 * columns;
      const cellIndex = (r: number, c: number) => table + 1 + r * rowLength + 1 + 2 * c + 1;
      // Cells are filled from the last to the first, so each index is still the empty table's.
      for (let r = rows - 1; r >= 0; r--) {
        for (let c = columns - 1; c >= 0; c--) {
          const text = (block.rows[r]![c] ?? []).map((run) => run.text).join('');
          if (text) requests.push({ insertText: { location: { index: cellIndex(r, c) }, text } });
        }
      }
      let shift = 0;
      for (let r = 0; r < rows; r++) {
        for (let c = 0; c < columns; c++) {
          const runs = block.rows[r]![c] ?? [];
          styleRuns(cellIndex(r, c) + shift, runs);
          shift += len(runs.map((run) => run.text).join(''));
        }
      }
      // The table ends with one more index after its last cell (2x2 at S: S … S+12).
      cursor = table + 1 + rows * rowLength + 1 + shift;
    }
  }
  return [...requests, ...bullets];
}

// ---- reading ----

function isMonospace(style: docs_v1.Schema$TextStyle | undefined): boolean {
  return MONOSPACE.has((style?.weightedFontFamily?.fontFamily ?? '').toLowerCase());
}

function runsOf(paragraph: docs_v1.Schema$Paragraph): { text: string; style: docs_v1.Schema$TextStyle }[] {
  const out: { text: string; style: docs_v1.Schema$TextStyle }[] = [];
  for (const element of paragraph.elements ?? []) {
    const text = element.textRun?.content;
    if (text)
      out.push({
        // A vertical tab (U+000B) is how Docs stores a line break inside a paragraph.
        text: text.replace(/\n$/, '').split('\u000b').join('\n'),
        style: element.textRun?.textStyle ?? {},
      });
  }
  return out.filter((r) => r.text !== '');
}

function markText(runs: { text: string; style: docs_v1.Schema$TextStyle }[], inCode: boolean): string {
  return runs
    .map(({ text, style }) => {
      if (inCode) return text;
      const core = text.trim();
      if (!core) return text;
      const lead = text.slice(0, text.indexOf(core));
      const tail = text.slice(lead.length + core.length);
      let out = core;
      if (isMonospace(style)) out = `\`${out}\``;
      if (style.bold) out = `**${out}**`;
      if (style.italic) out = `*${out}*`;
      if (style.link?.url) out = `[${out}](${style.link.url})`;
      return lead + out + tail;
    })
    .join('');
}

const ORDERED = new Set(['DECIMAL', 'ZERO_DECIMAL', 'UPPER_ALPHA', 'ALPHA', 'UPPER_ROMAN', 'ROMAN']);

function cellText(cell: docs_v1.Schema$TableCell): string {
  return (cell.content ?? [])
    .map((e) => (e.paragraph ? markText(runsOf(e.paragraph), false) : ''))
    .filter(Boolean)
    .join('<br>')
    .replace(/\|/g, '\\|');
}

/** A Docs document as Markdown-ish text (ends with a newline; empty paragraphs dropped). */
export function documentMarkdown(doc: docs_v1.Schema$Document): string {
  const blocks: string[] = [];
  let list: string[] | undefined;
  let listId: string | undefined;
  let code: string[] | undefined;
  const close = () => {
    if (list) blocks.push(list.join('\n'));
    if (code) blocks.push(['```', ...code, '```'].join('\n'));
    list = undefined;
    code = undefined;
  };
  for (const element of doc.body?.content ?? []) {
    if (element.table) {
      close();
      const rows = (element.table.tableRows ?? []).map((row) => (row.tableCells ?? []).map(cellText));
      if (rows.length === 0) continue;
      const width = Math.max(...rows.map((r) => r.length));
      const line = (cells: string[]) =>
        `| ${Array.from({ length: width }, (_, i) => cells[i] ?? '').join(' | ')} |`;
      const header = rows[0]!.map((c) => c.replace(/^\*\*(.*)\*\*$/, '$1'));
      blocks.push(
        [line(header), line(Array.from({ length: width }, () => '---')), ...rows.slice(1).map(line)].join(
          '\n',
        ),
      );
      continue;
    }
    const paragraph = element.paragraph;
    if (!paragraph) continue;
    const runs = runsOf(paragraph);
    const style = paragraph.paragraphStyle?.namedStyleType ?? 'NORMAL_TEXT';
    const heading =
      /^HEADING_(\d)$/.exec(style)?.[1] ?? (style === 'TITLE' ? '1' : style === 'SUBTITLE' ? '2' : undefined);
    const codeLine =
      !heading && !paragraph.bullet && runs.length > 0 && runs.every((r) => isMonospace(r.style));
    if (codeLine) {
      if (!code) {
        close();
        code = [];
      }
      code.push(
        runs
          .map((r) => r.text)
          .join('')
          .replace(/^ $/, ''),
      );
      continue;
    }
    const text = markText(runs, false);
    if (!text.trim()) continue;
    if (paragraph.bullet) {
      if (!list || listId !== paragraph.bullet.listId) {
        close();
        list = [];
        listId = paragraph.bullet.listId ?? undefined;
      }
      const level = paragraph.bullet.nestingLevel ?? 0;
      const glyph =
        doc.lists?.[paragraph.bullet.listId ?? '']?.listProperties?.nestingLevels?.[level]?.glyphType ?? '';
      list.push(`${'  '.repeat(level)}${ORDERED.has(glyph) ? '1.' : '-'} ${text.trim()}`);
      continue;
    }
    close();
    blocks.push(heading ? `${'#'.repeat(Number(heading))} ${text.trim()}` : text.trim());
  }
  close();
  return blocks.length ? `${blocks.join('\n\n')}\n` : '';
}

/** The index just before the body's final newline (where appended text goes), and the body's end. */
export function bodyEnd(doc: docs_v1.Schema$Document): number {
  const content = doc.body?.content ?? [];
  return content[content.length - 1]?.endIndex ?? 2;
}

/** Whether the last paragraph of the body is empty (appended text can go straight into it). */
export function endsWithEmptyParagraph(doc: docs_v1.Schema$Document): boolean {
  const last = doc.body?.content?.[doc.body.content.length - 1];
  if (!last?.paragraph) return false;
  return runsOf(last.paragraph).length === 0;
}

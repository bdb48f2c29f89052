/**
 * A Google Docs body as the Docs API indexes it: index 0 is the section break, every character is one
 * index (UTF-16), a table takes one index to start, one per row, one per cell and one to end (a 2x2
 * empty table at S spans S … S+12, as the Docs API guide shows). Requests are applied with the real
 * service's rules where Prismind relies on them: inserted text takes the style of the text before it,
 * a new paragraph takes the style of the one it was split from, bullets take their nesting from leading
 * tabs (removed), insertTable puts a newline before the table, the body's last newline cannot go.
 */
type TextStyle = Record<string, unknown>;

interface Char {
  t: 'c';
  ch: string;
  style: TextStyle;
  /** On a newline: the paragraph it ends. */
  para?: { named: string; bullet?: { listId: string; level: number } };
}
type Unit = Char | { t: 'tbl' } | { t: 'row' } | { t: 'cell' } | { t: 'end' };

export class BadRequest extends Error {}

const PRESETS: Record<string, string[]> = {
  BULLET_DISC_CIRCLE_SQUARE: ['GLYPH_TYPE_UNSPECIFIED'],
  NUMBERED_DECIMAL_ALPHA_ROMAN: ['DECIMAL', 'ALPHA', 'ROMAN'],
};
const TEXT_FIELDS = new Set(['bold', 'italic', 'link', 'weightedFontFamily', 'underline', 'strikethrough']);
const NAMED = new Set([
  'NORMAL_TEXT',
  'TITLE',
  'SUBTITLE',
  'HEADING_1',
  'HEADING_2',
  'HEADING_3',
  'HEADING_4',
  'HEADING_5',
  'HEADING_6',
]);

export class FakeDocument {
  units: Unit[] = [{ t: 'c', ch: '\n', style: {}, para: { named: 'NORMAL_TEXT' } }];
  lists = new Map<string, string[]>();
  revision = 1;
  private listCount = 0;

  constructor(
    readonly id: string,
    public title: string,
  ) {}

  get revisionId(): string {
    return `${this.id}-r${this.revision}`;
  }

  /** Index → position in units (index 0 is the section break). */
  private pos(index: number): number {
    if (!Number.isInteger(index) || index < 1 || index > this.units.length) {
      throw new BadRequest(
        `Invalid requests: index ${index} must be within the bounds of the body (1–${this.units.length}).`,
      );
    }
    return index - 1;
  }

  private isChar(u: Unit | undefined): u is Char {
    return u?.t === 'c';
  }

  /** The newline ending the paragraph that contains position p. */
  private paragraphEnd(p: number): number {
    for (let i = p; i < this.units.length; i++) {
      const u = this.units[i]!;
      if (!this.isChar(u)) throw new BadRequest('Invalid requests: the index is not inside a paragraph.');
      if (u.ch === '\n') return i;
    }
    throw new BadRequest('Invalid requests: no paragraph end.');
  }

  insertText(index: number, text: string): void {
    if (text === '') throw new BadRequest('Invalid requests: insertText text must not be empty.');
    const p = this.pos(index);
    if (!this.isChar(this.units[p]))
      throw new BadRequest(
        `Invalid requests: insertion index ${index} must be inside the bounds of an existing paragraph.`,
      );
    const end = this.units[this.paragraphEnd(p)] as Char;
    const prev = this.units[p - 1];
    const source = this.isChar(prev) && prev.ch !== '\n' ? prev : this.units[p];
    const chars: Unit[] = [];
    for (const ch of text) {
      for (const unit of ch.length === 2 ? [ch[0]!, ch[1]!] : [ch]) {
        chars.push({
          t: 'c',
          ch: unit,
          style: { ...source.style },
          ...(unit === '\n' ? { para: structuredClone(end.para!) } : {}),
        });
      }
    }
    this.units.splice(p, 0, ...chars);
  }

  deleteContentRange(start: number, endIndex: number): void {
    if (endIndex <= start) throw new BadRequest('Invalid requests: the range is empty.');
    const s = this.pos(start);
    const e = this.pos(endIndex - 1) + 1;
    if (e >= this.units.length)
      throw new BadRequest('Invalid requests: the last newline of the body cannot be deleted.');
    // Tables go whole or not at all.
    let depth = 0;
    for (let i = s; i < e; i++) {
      const t = this.units[i]!.t;
      if (t === 'tbl') depth++;
      if (t === 'end') depth--;
      if (depth < 0) throw new BadRequest('Invalid requests: the range cuts a table.');
    }
    if (depth !== 0 || (this.units[s]!.t !== 'c' && this.units[s]!.t !== 'tbl')) {
      throw new BadRequest('Invalid requests: the range cuts a table.');
    }
    // The paragraph that survives a merge keeps the properties of its (last) newline.
    this.units.splice(s, e - s);
  }

  /** Paragraph newline positions overlapping [start, end). */
  private paragraphsIn(start: number, end: number): number[] {
    const s = this.pos(start);
    const e = Math.min(this.pos(Math.max(start, end - 1)) + 1, this.units.length);
    const out: number[] = [];
    for (let i = s; i < this.units.length; i++) {
      const u = this.units[i]!;
      if (this.isChar(u) && u.ch === '\n') {
        out.push(i);
        if (i >= e - 1) break;
      } else if (!this.isChar(u) && i >= e) break;
    }
    return out;
  }

  updateParagraphStyle(start: number, end: number, style: { namedStyleType?: string }, fields: string): void {
    if (fields !== 'namedStyleType')
      throw new BadRequest(`Invalid requests: unsupported paragraph fields "${fields}".`);
    if (!style.namedStyleType || !NAMED.has(style.namedStyleType))
      throw new BadRequest('Invalid requests: namedStyleType.');
    for (const i of this.paragraphsIn(start, end)) (this.units[i] as Char).para!.named = style.namedStyleType;
  }

  updateTextStyle(start: number, end: number, style: TextStyle, fields: string): void {
    const names = fields.split(',');
    if (names.some((f) => !TEXT_FIELDS.has(f)))
      throw new BadRequest(`Invalid requests: unknown text style field in "${fields}".`);
    const s = this.pos(start);
    const e = this.pos(end - 1) + 1;
    for (let i = s; i < e; i++) {
      const u = this.units[i]!;
      if (!this.isChar(u)) continue;
      for (const f of names) {
        if (style[f] === undefined) delete u.style[f];
        else u.style[f] = structuredClone(style[f]);
      }
    }
  }

  createParagraphBullets(start: number, end: number, preset: string): void {
    const glyphs = PRESETS[preset];
    if (!glyphs) throw new BadRequest(`Invalid requests: bullet preset ${preset}.`);
    const listId = `kix.list${++this.listCount}`;
    this.lists.set(listId, glyphs);
    // From the last paragraph back, so removing tabs does not move the ones still to do.
    for (const nl of this.paragraphsIn(start, end).reverse()) {
      let first = nl;
      while (first > 0 && this.isChar(this.units[first - 1]) && (this.units[first - 1] as Char).ch !== '\n')
        first--;
      let tabs = 0;
      while ((this.units[first + tabs] as Char).ch === '\t') tabs++;
      this.units.splice(first, tabs);
      (this.units[nl - tabs] as Char).para!.bullet = { listId, level: tabs };
    }
  }

  deleteParagraphBullets(start: number, end: number): void {
    for (const i of this.paragraphsIn(start, end)) delete (this.units[i] as Char).para!.bullet;
  }

  insertTable(index: number, rows: number, columns: number): void {
    if (!(rows >= 1 && columns >= 1 && rows <= 100 && columns <= 20))
      throw new BadRequest('Invalid requests: table size.');
    const p = this.pos(index);
    if (!this.isChar(this.units[p]))
      throw new BadRequest('Invalid requests: a table goes inside a paragraph.');
    const end = this.units[this.paragraphEnd(p)] as Char;
    const table: Unit[] = [{ t: 'c', ch: '\n', style: {}, para: { named: end.para!.named } }, { t: 'tbl' }];
    for (let r = 0; r < rows; r++) {
      table.push({ t: 'row' });
      for (let c = 0; c < columns; c++)
        table.push({ t: 'cell' }, { t: 'c', ch: '\n', style: {}, para: { named: 'NORMAL_TEXT' } });
    }
    table.push({ t: 'end' });
    this.units.splice(p, 0, ...table);
  }

  /** The document as documents.get returns it. */
  toJson(): Record<string, unknown> {
    let i = 0;
    const units = this.units;
    const paragraph = (): Record<string, unknown> => {
      const start = i;
      const elements: Record<string, unknown>[] = [];
      let run: { start: number; text: string; style: TextStyle } | undefined;
      const flush = () => {
        if (run)
          elements.push({
            startIndex: run.start + 1,
            endIndex: run.start + 1 + run.text.length,
            textRun: { content: run.text, textStyle: run.style },
          });
        run = undefined;
      };
      for (;;) {
        const u = units[i] as Char;
        if (!run || JSON.stringify(run.style) !== JSON.stringify(u.style)) {
          flush();
          run = { start: i, text: '', style: u.style };
        }
        run.text += u.ch;
        i++;
        if (u.ch === '\n') {
          flush();
          return {
            startIndex: start + 1,
            endIndex: i + 1,
            paragraph: {
              elements,
              paragraphStyle: { namedStyleType: u.para!.named },
              ...(u.para!.bullet
                ? { bullet: { listId: u.para!.bullet.listId, nestingLevel: u.para!.bullet.level } }
                : {}),
            },
          };
        }
      }
    };
    const table = (): Record<string, unknown> => {
      const start = i;
      i++; // tbl
      const rows: Record<string, unknown>[] = [];
      while (units[i]!.t === 'row') {
        const rowStart = i;
        i++;
        const cells: Record<string, unknown>[] = [];
        while (units[i]!.t === 'cell') {
          const cellStart = i;
          i++;
          const content: Record<string, unknown>[] = [];
          while (units[i]!.t === 'c') content.push(paragraph());
          cells.push({ startIndex: cellStart + 1, endIndex: i + 1, content });
        }
        rows.push({ startIndex: rowStart + 1, endIndex: i + 1, tableCells: cells });
      }
      i++; // end
      return {
        startIndex: start + 1,
        endIndex: i + 1,
        table: {
          rows: rows.length,
          columns: (rows[0]?.tableCells as unknown[] | undefined)?.length ?? 0,
          tableRows: rows,
        },
      };
    };
    const content: Record<string, unknown>[] = [{ endIndex: 1, sectionBreak: {} }];
    while (i < units.length) content.push(units[i]!.t === 'tbl' ? table() : paragraph());
    const lists: Record<string, unknown> = {};
    for (const [id, glyphs] of this.lists) {
      lists[id] = {
        listProperties: {
          nestingLevels: Array.from({ length: 9 }, (_, level) => {
            const glyph = glyphs[level % glyphs.length]!;
            return glyph === 'GLYPH_TYPE_UNSPECIFIED' ? { glyphSymbol: '●' } : { glyphType: glyph };
          }),
        },
      };
    }
    return { documentId: this.id, title: this.title, revisionId: this.revisionId, body: { content }, lists };
  }

  /** The plain text (for tests' assertions). */
  text(): string {
    return this.units.map((u) => (u.t === 'c' ? u.ch : '')).join('');
  }
}

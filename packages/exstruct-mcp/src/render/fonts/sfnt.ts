// The few tables of a TrueType/OpenType font (or one face of a collection) that text measurement
// needs: which characters it has (cmap), how wide each glyph is (hmtx), its em and line metrics, its
// family name and style. Outlines are never read: the rasteriser draws them.

export interface FontFace {
  /** The family as the rasteriser matches it (typographic family name, else the family name). */
  family: string;
  bold: boolean;
  italic: boolean;
  unitsPerEm: number;
  /** Windows ascent + descent in font units: the line box GDI (and so Excel) uses. */
  winAscent: number;
  winDescent: number;
  /** Glyph id of a character, 0 when the font has none. */
  glyphOf(codePoint: number): number;
  /** Advance width of a glyph in font units. */
  advanceOf(glyph: number): number;
}

interface TableEntry {
  offset: number;
  length: number;
}

const TTC_TAG = 0x74746366; // 'ttcf'

/** The faces of a font file: one for a .ttf/.otf, each face of a .ttc collection. */
export function readFaces(data: Buffer): FontFace[] {
  if (data.length < 12) throw new Error('not a font file (too short)');
  if (data.readUInt32BE(0) === TTC_TAG) {
    const count = data.readUInt32BE(8);
    const faces: FontFace[] = [];
    for (let i = 0; i < count; i++) faces.push(readFace(data, data.readUInt32BE(12 + 4 * i)));
    return faces;
  }
  return [readFace(data, 0)];
}

function readFace(data: Buffer, start: number): FontFace {
  const version = data.readUInt32BE(start);
  if (version !== 0x00010000 && version !== 0x4f54544f /* OTTO */ && version !== 0x74727565 /* true */)
    throw new Error('not a TrueType/OpenType font');
  const tables = new Map<string, TableEntry>();
  const count = data.readUInt16BE(start + 4);
  for (let i = 0; i < count; i++) {
    const at = start + 12 + 16 * i;
    tables.set(data.toString('latin1', at, at + 4), {
      offset: data.readUInt32BE(at + 8),
      length: data.readUInt32BE(at + 12),
    });
  }
  const table = (tag: string): TableEntry => {
    const entry = tables.get(tag);
    if (!entry || entry.offset + entry.length > data.length) throw new Error(`font has no ${tag} table`);
    return entry;
  };
  const head = table('head');
  const unitsPerEm = data.readUInt16BE(head.offset + 18);
  const macStyle = data.readUInt16BE(head.offset + 44);
  const hhea = table('hhea');
  const metricsCount = data.readUInt16BE(hhea.offset + 34);
  const hmtx = table('hmtx');
  let winAscent = data.readInt16BE(hhea.offset + 4);
  let winDescent = -data.readInt16BE(hhea.offset + 6);
  let bold = (macStyle & 1) !== 0;
  let italic = (macStyle & 2) !== 0;
  const os2 = tables.get('OS/2');
  if (os2 && os2.length >= 78) {
    const fsSelection = data.readUInt16BE(os2.offset + 62);
    winAscent = data.readUInt16BE(os2.offset + 74);
    winDescent = data.readUInt16BE(os2.offset + 76);
    bold = (fsSelection & 0x20) !== 0 || data.readUInt16BE(os2.offset + 4) >= 600;
    italic = (fsSelection & 0x01) !== 0;
  }
  const lastAdvance = metricsCount > 0 ? data.readUInt16BE(hmtx.offset + 4 * (metricsCount - 1)) : unitsPerEm;
  const glyphOf = cmapLookup(data, table('cmap'));
  return {
    family: familyName(data, tables.get('name')) ?? '',
    bold,
    italic,
    unitsPerEm,
    winAscent,
    winDescent,
    glyphOf,
    advanceOf: (glyph) => (glyph < metricsCount ? data.readUInt16BE(hmtx.offset + 4 * glyph) : lastAdvance),
  };
}

/** A lookup over the best Unicode subtable: format 12 (full range) if present, else format 4 (BMP). */
function cmapLookup(data: Buffer, cmap: TableEntry): (codePoint: number) => number {
  const count = data.readUInt16BE(cmap.offset + 2);
  let format4: number | undefined;
  let format12: number | undefined;
  for (let i = 0; i < count; i++) {
    const at = cmap.offset + 4 + 8 * i;
    const platform = data.readUInt16BE(at);
    const encoding = data.readUInt16BE(at + 2);
    const sub = cmap.offset + data.readUInt32BE(at + 4);
    const unicode = platform === 0 || (platform === 3 && (encoding === 1 || encoding === 10));
    if (!unicode) continue;
    const format = data.readUInt16BE(sub);
    if (format === 12) format12 ??= sub;
    else if (format === 4) format4 ??= sub;
  }
  if (format12 !== undefined) return format12Lookup(data, format12);
  if (format4 !== undefined) return format4Lookup(data, format4);
  return () => 0;
}

function format12Lookup(data: Buffer, sub: number): (cp: number) => number {
  const groups = data.readUInt32BE(sub + 12);
  return (cp) => {
    let lo = 0;
    let hi = groups - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      const at = sub + 16 + 12 * mid;
      const first = data.readUInt32BE(at);
      if (cp < first) hi = mid - 1;
      else if (cp > data.readUInt32BE(at + 4)) lo = mid + 1;
      else return data.readUInt32BE(at + 8) + (cp - first);
    }
    return 0;
  };
}

function format4Lookup(data: Buffer, sub: number): (cp: number) => number {
  const segments = data.readUInt16BE(sub + 6) / 2;
  const ends = sub + 14;
  const starts = ends + 2 * segments + 2;
  const deltas = starts + 2 * segments;
  const offsets = deltas + 2 * segments;
  return (cp) => {
    if (cp > 0xffff) return 0;
    let lo = 0;
    let hi = segments - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (data.readUInt16BE(ends + 2 * mid) < cp) lo = mid + 1;
      else hi = mid;
    }
    const start = data.readUInt16BE(starts + 2 * lo);
    if (cp < start || cp > data.readUInt16BE(ends + 2 * lo)) return 0;
    const delta = data.readInt16BE(deltas + 2 * lo);
    const rangeOffset = data.readUInt16BE(offsets + 2 * lo);
    if (rangeOffset === 0) return (cp + delta) & 0xffff;
    const at = offsets + 2 * lo + rangeOffset + 2 * (cp - start);
    const glyph = data.readUInt16BE(at);
    return glyph === 0 ? 0 : (glyph + delta) & 0xffff;
  };
}

/** The typographic family (name ID 16) or family (ID 1), in English where the font has it. */
function familyName(data: Buffer, name: TableEntry | undefined): string | undefined {
  if (!name) return undefined;
  const count = data.readUInt16BE(name.offset + 2);
  const strings = name.offset + data.readUInt16BE(name.offset + 4);
  let best: { rank: number; text: string } | undefined;
  for (let i = 0; i < count; i++) {
    const at = name.offset + 6 + 12 * i;
    const platform = data.readUInt16BE(at);
    const language = data.readUInt16BE(at + 4);
    const id = data.readUInt16BE(at + 6);
    if (id !== 1 && id !== 16) continue;
    const length = data.readUInt16BE(at + 8);
    const offset = strings + data.readUInt16BE(at + 10);
    let text: string;
    if (platform === 3 || platform === 0) text = utf16be(data, offset, length);
    else if (platform === 1) text = data.toString('latin1', offset, offset + length);
    else continue;
    const english = (platform === 3 && language === 0x409) || (platform === 1 && language === 0);
    const rank = (id === 16 ? 2 : 0) + (english ? 1 : 0);
    if (!best || rank > best.rank) best = { rank, text };
  }
  return best?.text;
}

function utf16be(data: Buffer, offset: number, length: number): string {
  const swapped = Buffer.from(data.subarray(offset, offset + length));
  swapped.swap16();
  return swapped.toString('utf16le');
}

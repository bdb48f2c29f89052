// A character no bundled font has (𠮷 in CJK Extension B, emoji) was measured as a Latin '?', so
// auto_fit_columns made its column half as wide as the same count of kanji, and said nothing. It is
// measured full width now when it is East Asian wide, and the op says it guessed.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TextMeasurer } from '../src/render/fonts/text-measure.js';
import { SvgWriter } from '../src/render/svg-writer.js';
import { workspace, type Workspace } from './patch-helpers.js';

const STYLE = { bold: false, italic: false, size: 11 };
const TEXTS = {
  A: '漢字漢字漢字漢字漢字',
  B: '𠮷'.repeat(10),
  C: '😀'.repeat(10),
  D: 'ABCDEFGHIJ',
  E: '❤️'.repeat(10), // U+2764 (narrow) and VS16: a mark measured as nothing
};

interface Made {
  patch_diff: { op: string; after: { value: string } | null }[];
  warnings: string[];
}

let ws: Workspace;
let previous: string | undefined;
beforeAll(async () => {
  // Only the bundled fonts, whatever this machine has (the op's measurer looks for one once).
  previous = process.env.EXSTRUCT_SYSTEM_FONTS;
  process.env.EXSTRUCT_SYSTEM_FONTS = '0';
  ws = await workspace();
});
afterAll(async () => {
  if (previous === undefined) delete process.env.EXSTRUCT_SYSTEM_FONTS;
  else process.env.EXSTRUCT_SYSTEM_FONTS = previous;
  await ws.close();
});

describe('measuring characters no font has', () => {
  const measurer = new TextMeasurer(() => undefined);

  it('gives East Asian wide ones a full width and others a half width', () => {
    const kanji = measurer.width(TEXTS.A, STYLE);
    expect(measurer.width(TEXTS.B, STYLE)).toBeCloseTo(kanji, 5);
    expect(measurer.width(TEXTS.C, STYLE)).toBeCloseTo(kanji, 5);
    expect(measurer.missing).toEqual(new Set(['𠮷', '😀']));
    // A narrow character no font has (an Old Italic letter) stays as wide as the '?' it is drawn as.
    expect(measurer.width('𐌀', STYLE)).toBeCloseTo(measurer.width('?', STYLE), 5);
  });

  it("draws each '?' in the middle of the room it was measured with", () => {
    const svg = new SvgWriter();
    const drawn = svg.text(measurer, '𠮷😀', 0, 20, { ...STYLE, color: '000000' });
    expect(drawn).toBeCloseTo((measurer.width('漢字', STYLE) * 96) / 72, 5);
    const xs = [...svg.finish(100, 40).matchAll(/<text x="([\d.]+)"[^>]*>\?<\/text>/g)].map((m) =>
      Number(m[1]),
    );
    const room = drawn / 2;
    const mark = (measurer.width('?', STYLE) * 96) / 72;
    expect(xs[0]).toBeCloseTo((room - mark) / 2, 1);
    expect(xs[1]).toBeCloseTo(room + (room - mark) / 2, 1);
  });
});

describe('auto_fit_columns with characters no font has', () => {
  it('fits 10 × 𠮷 and 10 × 😀 as wide as 10 kanji, and warns that it guessed', async () => {
    const res = await ws.call<Made>('exstruct_make', {
      out_path: 'wide.xlsx',
      ops: [
        { op: 'set_range_values', sheet: 'Sheet1', range: 'A1:E1', values: [Object.values(TEXTS)] },
        { op: 'auto_fit_columns', sheet: 'Sheet1' },
      ],
    });
    expect(res.isError, res.text).toBe(false);
    const fitted = res.structured.patch_diff.find((d) => d.op === 'auto_fit_columns')!.after!.value;
    const widths = Object.fromEntries(
      /widths (.*)$/
        .exec(fitted)![1]!
        .split(', ')
        .map((pair) => pair.split('='))
        .map(([col, width]) => [col, Number(width)]),
    );
    expect(widths.A).toBeGreaterThan(20);
    expect(widths.B).toBe(widths.A);
    expect(widths.C).toBe(widths.A);
    expect(widths.D).toBeLessThan(widths.A / 1.5);
    const warning = res.structured.warnings.find((w) => /no font has/i.test(w));
    expect(warning).toMatch(/auto_fit_columns on "Sheet1": no font has 3 character\(s\)/);
    expect(warning).toMatch(/U\+20BB7/);
    expect(warning).toMatch(/U\+1F600/);
    expect(warning).toMatch(/guessed/);
  });

  it('does not warn when every character has a font', async () => {
    const res = await ws.call<Made>('exstruct_make', {
      out_path: 'plain.xlsx',
      ops: [
        { op: 'set_range_values', sheet: 'Sheet1', range: 'A1:B1', values: [['漢字', 'abc']] },
        { op: 'auto_fit_columns', sheet: 'Sheet1' },
      ],
    });
    expect(res.isError, res.text).toBe(false);
    expect(res.structured.warnings.join(' ')).not.toMatch(/no font has/i);
  });
});

import type { TextMeasurer, TextStyle } from './fonts/text-measure.js';
import { CJK_FAMILY, LATIN_FAMILY } from './fonts/font-set.js';

/** Collects SVG markup; coordinates are pixels at 96 dpi (the rasteriser scales to the asked dpi). */
export class SvgWriter {
  private readonly parts: string[] = [];
  private clipCount = 0;
  private readonly defs: string[] = [];

  add(markup: string): void {
    this.parts.push(markup);
  }

  rect(x: number, y: number, w: number, h: number, fill: string): void {
    if (w <= 0 || h <= 0) return;
    this.parts.push(`<rect x="${n(x)}" y="${n(y)}" width="${n(w)}" height="${n(h)}" fill="#${fill}"/>`);
  }

  /** One path of many straight segments in one colour and width (cheap to rasterise). */
  lines(d: string, color: string, width: number, dash?: string): void {
    if (!d) return;
    this.parts.push(
      `<path d="${d}" stroke="#${color}" stroke-width="${n(width)}" fill="none"${dash ? ` stroke-dasharray="${dash}"` : ''}/>`,
    );
  }

  /** A clip rectangle; returns the attribute to put on a group. */
  clip(x: number, y: number, w: number, h: number): string {
    const id = `c${++this.clipCount}`;
    this.defs.push(
      `<clipPath id="${id}"><rect x="${n(x)}" y="${n(y)}" width="${n(Math.max(0, w))}" height="${n(Math.max(0, h))}"/></clipPath>`,
    );
    return ` clip-path="url(#${id})"`;
  }

  /**
   * One line of text starting at `x` on the baseline `y`: one `<text>` per run of one face, each at the
   * x the measurer computed (the rasteriser is never asked to pick a font or place a run itself).
   */
  text(
    measurer: TextMeasurer,
    line: string,
    x: number,
    y: number,
    style: TextStyle & { color: string; underline?: boolean; strike?: boolean },
  ): number {
    const px = (style.size * 96) / 72;
    const runs = measurer.runs(line, style);
    let at = x;
    const out: string[] = [];
    for (const run of runs) {
      const width = (run.width * 96) / 72;
      if (!run.face) {
        // No font has these characters: a red '?' each, never an empty box (the answer warns too),
        // centred in the room the character was measured with (a full width for 𠮷 or 😀).
        const mark = measurer.missingWidth('?', style);
        let slot = at;
        for (const ch of run.text) {
          const room = measurer.missingWidth(ch, style);
          out.push(
            `<text x="${n(slot + (((room - mark) / 2) * 96) / 72)}" y="${n(y)}" font-family="${LATIN_FAMILY}" font-size="${n(px)}" fill="#D00000" font-weight="bold">?</text>`,
          );
          slot += (room * 96) / 72;
        }
      } else if (run.face.family === LATIN_FAMILY) {
        out.push(
          `<text x="${n(at)}" y="${n(y)}" font-family="${LATIN_FAMILY}" font-size="${n(px)}" fill="#${style.color}"${style.bold ? ' font-weight="bold"' : ''}${style.italic ? ' font-style="italic"' : ''} xml:space="preserve">${escapeXml(run.text)}</text>`,
        );
      } else {
        // The CJK faces have one weight and no italic: bold is a stroke, italic a slant.
        const family = run.face.family === CJK_FAMILY ? CJK_FAMILY : run.face.family;
        const bold = style.bold ? ` stroke="#${style.color}" stroke-width="${n(px / 30)}"` : '';
        const place = style.italic
          ? `x="0" y="0" transform="translate(${n(at)} ${n(y)}) skewX(-12)"`
          : `x="${n(at)}" y="${n(y)}"`;
        out.push(
          `<text ${place} font-family="${escapeXml(family)}" font-size="${n(px)}" fill="#${style.color}"${bold} xml:space="preserve">${escapeXml(run.text)}</text>`,
        );
      }
      at += width;
    }
    const total = at - x;
    const thickness = Math.max(1, px / 14);
    if (style.underline)
      out.push(
        `<rect x="${n(x)}" y="${n(y + px * 0.12)}" width="${n(total)}" height="${n(thickness)}" fill="#${style.color}"/>`,
      );
    if (style.strike)
      out.push(
        `<rect x="${n(x)}" y="${n(y - px * 0.3)}" width="${n(total)}" height="${n(thickness)}" fill="#${style.color}"/>`,
      );
    this.parts.push(out.join(''));
    return total;
  }

  finish(width: number, height: number): string {
    return (
      `<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="${n(width)}" height="${n(height)}" viewBox="0 0 ${n(width)} ${n(height)}">` +
      (this.defs.length ? `<defs>${this.defs.join('')}</defs>` : '') +
      `<rect width="100%" height="100%" fill="#FFFFFF"/>` +
      this.parts.join('') +
      '</svg>'
    );
  }
}

/** A number for SVG: at most two decimals, no trailing zeros. */
export function n(value: number): string {
  return String(Math.round(value * 100) / 100);
}

export function escapeXml(text: string): string {
  return text.replace(/[&<>"]/g, (ch) =>
    ch === '&' ? '&amp;' : ch === '<' ? '&lt;' : ch === '>' ? '&gt;' : '&quot;',
  );
}

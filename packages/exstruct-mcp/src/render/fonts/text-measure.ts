import { eastAsianWidth } from 'get-east-asian-width';
import { bundledFaces, CJK_FAMILY, LATIN_FAMILY, systemFallbackFace, type LoadedFace } from './font-set.js';

export interface TextStyle {
  bold: boolean;
  italic: boolean;
  /** Font size in points. */
  size: number;
}

/** Marks and format characters (variation selectors, joiners): zero width when no font has them. */
const ZERO_WIDTH = /^[\p{Mn}\p{Me}\p{Cf}]$/u;

/** A piece of a line drawn with one face; `face` undefined: no font has these characters. */
export interface TextRun {
  text: string;
  face: LoadedFace | undefined;
  /** Advance width in points. */
  width: number;
}

/**
 * Measures and splits text into runs of one face each, with the same faces the rasteriser draws with:
 * the Latin face of the style, else the bundled CJK subset, else a CJK font of the machine. Widths are
 * sums of glyph advances (no kerning: the bundled fonts carry none, and Excel does not kern cells).
 */
export class TextMeasurer {
  /** Characters no font has (drawn as a red `?`; measured by missingWidth). */
  readonly missing = new Set<string>();
  /** The machine's font, once a character needed it. */
  systemFace: LoadedFace | undefined;
  private readonly latin: LoadedFace[];
  private readonly cjk: LoadedFace;
  private systemLooked = false;

  constructor(private readonly findSystemFace: () => LoadedFace | undefined = systemFallbackFace) {
    const faces = bundledFaces();
    this.latin = faces.filter((f) => f.family === LATIN_FAMILY);
    this.cjk = faces.find((f) => f.family === CJK_FAMILY)!;
  }

  /** The bundled faces, and the system one if a character needed it: what the rasteriser loads. */
  facesInUse(): LoadedFace[] {
    return this.systemFace ? [...bundledFaces(), this.systemFace] : bundledFaces();
  }

  latinFace(style: Pick<TextStyle, 'bold' | 'italic'>): LoadedFace {
    return (
      this.latin.find((f) => f.bold === style.bold && f.italic === style.italic) ??
      this.latin.find((f) => f.bold === style.bold) ??
      this.latin[0]!
    );
  }

  private faceFor(cp: number, latin: LoadedFace): LoadedFace | undefined {
    if (latin.glyphOf(cp) !== 0) return latin;
    if (this.cjk.glyphOf(cp) !== 0) return this.cjk;
    if (!this.systemLooked) {
      this.systemLooked = true;
      this.systemFace = this.findSystemFace();
    }
    if (this.systemFace && this.systemFace.glyphOf(cp) !== 0) return this.systemFace;
    return undefined;
  }

  /** Splits one line (no line breaks) into runs of one face each. */
  runs(line: string, style: TextStyle): TextRun[] {
    const latin = this.latinFace(style);
    const out: TextRun[] = [];
    let current: TextRun | undefined;
    for (const ch of line) {
      let cp = ch.codePointAt(0)!;
      if (cp === 9) cp = 32; // a tab shows as a space in a cell
      if (cp < 32 || (cp >= 0x7f && cp < 0xa0)) continue; // control characters draw nothing
      const face = this.faceFor(cp, latin);
      let width: number;
      if (face) {
        width = (face.advanceOf(face.glyphOf(cp)) / face.unitsPerEm) * style.size;
      } else {
        if (ZERO_WIDTH.test(ch)) continue; // a mark joins the character before it: nothing to draw
        this.missing.add(ch);
        width = this.missingWidth(ch, style);
      }
      const text = cp === 32 && ch !== ' ' ? ' ' : ch;
      if (current && current.face === face) {
        current.text += text;
        current.width += width;
      } else {
        current = { text, face, width };
        out.push(current);
      }
    }
    return out;
  }

  /**
   * The width in points a character no font has is given: what a font that had it would most likely
   * give it, a CJK ideograph's advance for East Asian wide characters (𠮷, 😀), else a Latin `?`.
   */
  missingWidth(ch: string, style: TextStyle): number {
    // Unicode's East_Asian_Width W and F (ambiguous ones as narrow, as Unicode advises without context).
    if (eastAsianWidth(ch.codePointAt(0)!, { ambiguousAsWide: false }) === 2) {
      const ideograph = this.cjk.glyphOf(0x4e00); // 一
      return (this.cjk.advanceOf(ideograph) / this.cjk.unitsPerEm) * style.size;
    }
    const latin = this.latinFace(style);
    return (latin.advanceOf(latin.glyphOf(63)) / latin.unitsPerEm) * style.size; // '?'
  }

  /** Width of one line in points. */
  width(line: string, style: TextStyle): number {
    let total = 0;
    for (const run of this.runs(line, style)) total += run.width;
    return total;
  }
}

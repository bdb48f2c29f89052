import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { brotliDecompressSync } from 'node:zlib';
import { readFaces, type FontFace } from './sfnt.js';

/** A face the rasteriser is given, with the bytes it reads and what measurement reads of them. */
export interface LoadedFace extends FontFace {
  data: Uint8Array;
  /** Where it came from: `bundled` or the file found on the machine. */
  source: string;
}

/** Latin (metric-compatible with Calibri), in four styles: text is measured and drawn with them. */
export const LATIN_FAMILY = 'ExStruct Sans';
/** The bundled CJK subset (code page 932), one weight; bold is drawn with a stroke. */
export const CJK_FAMILY = 'ExStruct Sans JP';

/** `fonts/` of the package, beside `src/` and `dist/` (both are three levels above this file). */
const FONT_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../fonts');

const BUNDLED = [
  'ExStructSans-Regular.ttf.br',
  'ExStructSans-Bold.ttf.br',
  'ExStructSans-Italic.ttf.br',
  'ExStructSans-BoldItalic.ttf.br',
  'ExStructSansJP-Regular.otf.br',
];

/**
 * CJK fonts that operating systems ship, tried in order for characters the bundled subset lacks
 * (rare kanji, Hangul, simplified Chinese). The first file that exists is used.
 */
const SYSTEM_CJK_CANDIDATES = [
  // Windows
  'C:\\Windows\\Fonts\\YuGothR.ttc',
  'C:\\Windows\\Fonts\\meiryo.ttc',
  'C:\\Windows\\Fonts\\msgothic.ttc',
  // macOS
  '/System/Library/Fonts/ヒラギノ角ゴシック W3.ttc',
  '/System/Library/Fonts/Hiragino Sans GB.ttc',
  '/Library/Fonts/Arial Unicode.ttf',
  // Linux distributions
  '/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc',
  '/usr/share/fonts/noto-cjk/NotoSansCJK-Regular.ttc',
  '/usr/share/fonts/google-noto-cjk/NotoSansCJK-Regular.ttc',
  '/usr/share/fonts/opentype/ipaexfont-gothic/ipaexg.ttf',
  '/usr/share/fonts/opentype/ipafont-gothic/ipag.ttf',
  '/usr/share/fonts/truetype/fonts-japanese-gothic.ttf',
  '/usr/share/fonts/truetype/vlgothic/VL-Gothic-Regular.ttf',
  '/usr/share/fonts/truetype/wqy/wqy-zenhei.ttc',
];

let bundled: LoadedFace[] | undefined;

/** The bundled faces, decompressed once per process (about 2.3 MB in memory). */
export function bundledFaces(): LoadedFace[] {
  bundled ??= BUNDLED.map((file) => {
    const data = brotliDecompressSync(readFileSync(path.join(FONT_DIR, file)));
    const [face] = readFaces(data);
    return {
      ...face!,
      data: new Uint8Array(data.buffer, data.byteOffset, data.byteLength),
      source: 'bundled',
    };
  });
  return bundled;
}

const systemCache = new Map<string, LoadedFace | null>();

/**
 * A font of the machine for characters the bundled fonts lack: the files named in
 * `EXSTRUCT_FONT_FILES` (separated like PATH), then the known system CJK fonts. None when
 * `EXSTRUCT_SYSTEM_FONTS=0`. Only the first face of a collection is used (its Japanese face for the
 * Noto and Windows collections).
 */
export function systemFallbackFace(env: NodeJS.ProcessEnv = process.env): LoadedFace | undefined {
  if (env.EXSTRUCT_SYSTEM_FONTS === '0') return undefined;
  const named = (env.EXSTRUCT_FONT_FILES ?? '').split(path.delimiter).filter(Boolean);
  for (const file of [...named, ...SYSTEM_CJK_CANDIDATES]) {
    const face = loadSystemFace(file);
    if (face) return face;
  }
  return undefined;
}

function loadSystemFace(file: string): LoadedFace | undefined {
  const cached = systemCache.get(file);
  if (cached !== undefined) return cached ?? undefined;
  let face: LoadedFace | null = null;
  try {
    if (existsSync(file)) {
      const data = readFileSync(file);
      const [first] = readFaces(data);
      if (first && first.family) {
        face = {
          ...first,
          data: new Uint8Array(data.buffer, data.byteOffset, data.byteLength),
          source: file,
        };
      }
    }
  } catch {
    face = null; // unreadable or not a font: try the next one
  }
  systemCache.set(file, face);
  return face ?? undefined;
}

import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { ToolError } from '@mcp-workbench/core/engine';
import { initWasm, Resvg } from '@resvg/resvg-wasm';
import type { LoadedFace } from './fonts/font-set.js';
import { withTextChunks } from './png-text.js';

let ready: Promise<void> | undefined;

/** Loads resvg's WebAssembly module once per process (about 2.4 MB, ~50–100 ms). */
function ensureWasm(): Promise<void> {
  ready ??= (async () => {
    const wasm = createRequire(import.meta.url).resolve('@resvg/resvg-wasm/index_bg.wasm');
    await initWasm(await readFile(wasm));
  })();
  return ready;
}

export interface RasterImage {
  png: Buffer;
  width: number;
  height: number;
}

/**
 * Rasterises an SVG drawn in 96-dpi pixels at `dpi`, with exactly the given fonts (no system font
 * lookup: every run of text names the face it was measured with).
 */
export async function rasterize(
  svg: string,
  dpi: number,
  faces: LoadedFace[],
  pngText?: Record<string, string>,
): Promise<RasterImage> {
  await ensureWasm();
  let resvg: InstanceType<typeof Resvg> | undefined;
  try {
    resvg = new Resvg(svg, {
      fitTo: { mode: 'zoom', value: dpi / 96 },
      font: { fontBuffers: faces.map((f) => f.data), defaultFontFamily: 'ExStruct Sans' },
      shapeRendering: 2,
      textRendering: 1,
      imageRendering: 0,
    });
    const image = resvg.render();
    try {
      const png = Buffer.from(image.asPng());
      return { png: pngText ? withTextChunks(png, pngText) : png, width: image.width, height: image.height };
    } finally {
      image.free();
    }
  } catch (error) {
    throw renderFailed(error);
  } finally {
    // After a panic inside resvg its object stays borrowed and free() throws "recursive use of an
    // object…": that must not replace the real failure (the object is left to the collector).
    try {
      resvg?.free();
    } catch {
      /* already reported */
    }
  }
}

/** resvg's failures (a panic is "unreachable") as a coded error that says what was being drawn. */
function renderFailed(error: unknown): ToolError {
  const message = error instanceof Error ? error.message : String(error);
  return new ToolError('RENDER_FAILED', `The image could not be rasterised (resvg: ${message}).`, {
    hint: 'Draw a smaller range, or another dpi; if it persists, report the workbook.',
  });
}

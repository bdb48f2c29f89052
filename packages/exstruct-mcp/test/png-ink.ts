import type { PNG } from 'pngjs';

/**
 * Share of ink inside a rectangle of a PNG: pixels with a channel under `below` (200 counts light grey
 * gridlines and anti-aliased text; 160 only text and dark lines).
 */
export function ink(png: PNG, x0: number, y0: number, x1: number, y1: number, below = 200): number {
  let dark = 0;
  let all = 0;
  for (let y = Math.max(0, y0); y < Math.min(png.height, y1); y++)
    for (let x = Math.max(0, x0); x < Math.min(png.width, x1); x++) {
      const i = (y * png.width + x) * 4;
      all++;
      if (png.data[i]! < below || png.data[i + 1]! < below || png.data[i + 2]! < below) dark++;
    }
  return all ? dark / all : 0;
}

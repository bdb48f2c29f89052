import type { Anchor, EmuRect, Marker } from '../ooxml/drawing-part.js';
import type { WorksheetInfo } from '../ooxml/worksheet-reader.js';

export const EMU_PER_POINT = 12700;
/** Maximum digit width in pixels of Calibri 11, Excel's default font; column widths are counted in it. */
const MAX_DIGIT_WIDTH_PX = 7;

/** Points, truncated like Excel's object model reports them (148.8 → 148). */
export function emuToPoints(emu: number): number {
  return Math.trunc(emu / EMU_PER_POINT);
}

/** Column width in characters → points, by Excel's pixel rounding rule. */
function widthToPoints(width: number): number {
  const px = Math.trunc(((256 * width + Math.trunc(128 / MAX_DIGIT_WIDTH_PX)) / 256) * MAX_DIGIT_WIDTH_PX);
  return px * 0.75;
}

/**
 * Converts anchor markers (column/row + EMU offset) into points from the sheet's top-left corner, from
 * the sheet's column widths and row heights. Exact for Calibri-11 workbooks; other default fonts make
 * Excel's columns slightly wider, so anchor-only positions are approximate there.
 */
export class SheetGeometry {
  private readonly defaultColPt: number;
  private readonly defaultRowPt: number;
  private readonly colWidths = new Map<number, number>();
  private readonly rowKeys: number[];
  private readonly rowPrefix: number[];

  constructor(info: WorksheetInfo) {
    // Without defaultColWidth Excel draws baseColWidth digits plus 8 px of padding: 8 → 64 px = 48 pt.
    this.defaultColPt =
      info.defaultColWidth !== undefined
        ? widthToPoints(info.defaultColWidth)
        : ((info.baseColWidth ?? 8) * MAX_DIGIT_WIDTH_PX + 8) * 0.75;
    this.defaultRowPt = info.defaultRowHeight ?? 15;
    for (const col of info.columns) {
      const pt = col.hidden ? 0 : col.width === undefined ? this.defaultColPt : widthToPoints(col.width);
      for (let c = col.min - 1; c < col.max && c < 16384; c++) this.colWidths.set(c, pt);
    }
    // Prefix sums over rows with an explicit height, for O(log n) offsets on tall sheets.
    this.rowKeys = [...info.rowHeights.keys()].map((r) => r - 1).sort((a, b) => a - b);
    this.rowPrefix = [];
    let sum = 0;
    for (const row0 of this.rowKeys) {
      sum += info.rowHeights.get(row0 + 1)! - this.defaultRowPt;
      this.rowPrefix.push(sum);
    }
  }

  /** Points from the left edge to the left of a 0-based column. */
  colLeft(col: number): number {
    let x = 0;
    for (let c = 0; c < col; c++) x += this.colWidths.get(c) ?? this.defaultColPt;
    return x;
  }

  /** Points from the top edge to the top of a 0-based row. */
  rowTop(row0: number): number {
    let lo = 0;
    let hi = this.rowKeys.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.rowKeys[mid]! < row0) lo = mid + 1;
      else hi = mid;
    }
    return row0 * this.defaultRowPt + (lo > 0 ? this.rowPrefix[lo - 1]! : 0);
  }

  private markerPoints(marker: Marker): { x: number; y: number } {
    return {
      x: this.colLeft(marker.col) + marker.colOff / EMU_PER_POINT,
      y: this.rowTop(marker.row) + marker.rowOff / EMU_PER_POINT,
    };
  }

  /** The box of an object in points: its own transform when it has a size, else its anchor. */
  box(rect: EmuRect | undefined, anchor: Anchor): { l: number; t: number; w: number; h: number } {
    // A straight horizontal/vertical line has one zero dimension; its transform is still right.
    if (rect && (rect.cx > 0 || rect.cy > 0)) {
      return {
        l: emuToPoints(rect.x),
        t: emuToPoints(rect.y),
        w: emuToPoints(rect.cx),
        h: emuToPoints(rect.cy),
      };
    }
    if (anchor.pos) {
      return {
        l: emuToPoints(anchor.pos.x),
        t: emuToPoints(anchor.pos.y),
        w: emuToPoints(anchor.ext?.cx ?? 0),
        h: emuToPoints(anchor.ext?.cy ?? 0),
      };
    }
    if (anchor.from) {
      const from = this.markerPoints(anchor.from);
      let w = (anchor.ext?.cx ?? 0) / EMU_PER_POINT;
      let h = (anchor.ext?.cy ?? 0) / EMU_PER_POINT;
      if (anchor.to) {
        const to = this.markerPoints(anchor.to);
        w = Math.max(0, to.x - from.x);
        h = Math.max(0, to.y - from.y);
      }
      return { l: Math.trunc(from.x), t: Math.trunc(from.y), w: Math.trunc(w), h: Math.trunc(h) };
    }
    return { l: 0, t: 0, w: 0, h: 0 };
  }
}

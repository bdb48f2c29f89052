import { MAX_COLUMN_INDEX, MAX_ROW, type CellRange } from '../ooxml/cell-ref.js';
import type { PrintArea } from '../extract/model.js';

/**
 * The cells to draw for a print area: the area as defined (blank cells print as blank, as in Excel),
 * except that whole columns or rows (`$A:$C`, `$1:$5`, the whole sheet) stop at the used range rather
 * than at row 1,048,576. Undefined when the area holds nothing the sheet uses: Excel has nothing to
 * print there and LibreOffice leaves empty pages out, so no blank image is drawn.
 */
export function printAreaToDraw(area: PrintArea, used: CellRange | undefined): CellRange | undefined {
  if (!used) return undefined;
  const overlaps =
    area.r1 <= used.end.row &&
    area.r2 >= used.start.row &&
    area.c1 <= used.end.col &&
    area.c2 >= used.start.col;
  if (!overlaps) return undefined;
  const wholeColumns = area.r1 === 1 && area.r2 === MAX_ROW;
  const wholeRows = area.c1 === 0 && area.c2 === MAX_COLUMN_INDEX;
  return {
    start: { row: area.r1, col: area.c1 },
    end: {
      row: wholeColumns ? Math.min(area.r2, used.end.row) : area.r2,
      col: wholeRows ? Math.min(area.c2, used.end.col) : area.c2,
    },
  };
}

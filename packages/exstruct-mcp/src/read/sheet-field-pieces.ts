// A sheet's fields other than its rows (formulas_map, merged cells, shapes, …) cut into pieces, for the
// chunk reader to send a few at a time when they do not fit one chunk: a verbose sheet of a million
// formulas has a formulas_map of megabytes, more than any one answer may carry.
import { utf8ByteLength } from '@mcp-workbench/core/engine';

/** One piece: a whole field, one item of a list field, or one entry (or part of its list) of a map field. */
export interface FieldPiece {
  field: string;
  kind: 'value' | 'item' | 'entry';
  /** The map entry's key (kind 'entry'). */
  key?: string;
  value: unknown;
  /** Bytes of the piece's JSON: what it adds to a page, about. */
  bytes: number;
}

const bytesOf = (value: unknown) => utf8ByteLength(JSON.stringify(value) ?? 'null');

/** The pieces of `fields`, in field order; an entry whose list is larger than `maxBytes` is cut too. */
export function fieldPieces(fields: Record<string, unknown>, maxBytes: number): FieldPiece[] {
  const pieces: FieldPiece[] = [];
  for (const [field, value] of Object.entries(fields)) {
    if (Array.isArray(value)) {
      for (const item of value) pieces.push({ field, kind: 'item', value: item, bytes: bytesOf(item) + 1 });
    } else if (value !== null && typeof value === 'object') {
      for (const [key, entry] of Object.entries(value))
        pieces.push(...entryPieces(field, key, entry, maxBytes));
    } else pieces.push({ field, kind: 'value', value, bytes: bytesOf(value) + field.length + 4 });
  }
  return pieces;
}

function entryPieces(field: string, key: string, entry: unknown, maxBytes: number): FieldPiece[] {
  const overhead = utf8ByteLength(JSON.stringify(key)) + 2;
  const bytes = bytesOf(entry) + overhead;
  if (!Array.isArray(entry) || bytes <= maxBytes) return [{ field, kind: 'entry', key, value: entry, bytes }];
  // A formula used in 100,000 cells: its list of cells goes in parts that each fit a page.
  const parts: FieldPiece[] = [];
  let part: unknown[] = [];
  let partBytes = overhead;
  for (const item of entry) {
    const cost = bytesOf(item) + 1;
    if (part.length > 0 && partBytes + cost > maxBytes / 2) {
      parts.push({ field, kind: 'entry', key, value: part, bytes: partBytes });
      part = [];
      partBytes = overhead;
    }
    part.push(item);
    partBytes += cost;
  }
  if (part.length > 0) parts.push({ field, kind: 'entry', key, value: part, bytes: partBytes });
  return parts;
}

/**
 * The fields a run of pieces spells: a list field's items in a list, a map field's entries in a map
 * (the parts of one entry's list joined). Pieces of a field split across pages join the same way.
 */
export function joinPieces(pieces: readonly FieldPiece[]): Record<string, unknown> {
  // Null prototypes: a map key read from the file may be "__proto__".
  const fields = Object.create(null) as Record<string, unknown>;
  for (const piece of pieces) {
    if (piece.kind === 'value') fields[piece.field] = piece.value;
    else if (piece.kind === 'item') ((fields[piece.field] ??= []) as unknown[]).push(piece.value);
    else {
      const map = (fields[piece.field] ??= Object.create(null)) as Record<string, unknown>;
      const held: unknown = map[piece.key!];
      map[piece.key!] = Array.isArray(held)
        ? [...(held as unknown[]), ...(piece.value as unknown[])]
        : piece.value;
    }
  }
  return fields;
}

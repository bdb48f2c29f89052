const ENTITY = /&(?:#x([0-9A-Fa-f]+)|#([0-9]+)|(amp|lt|gt|quot|apos));/g;
const NAMED: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

/** Resolves XML's five predefined entities and character references. */
export function decodeXmlEntities(text: string): string {
  if (!text.includes('&')) return text;
  return text.replace(
    ENTITY,
    (_match, hex: string | undefined, dec: string | undefined, name: string | undefined) =>
      name !== undefined
        ? NAMED[name]!
        : String.fromCodePoint(hex !== undefined ? parseInt(hex, 16) : Number(dec)),
  );
}

/** OOXML escapes characters XML cannot carry as `_xHHHH_` (e.g. `_x000D_` for a carriage return). */
export function unescapeOoxmlText(text: string): string {
  if (!text.includes('_x')) return text;
  return text.replace(/_x([0-9A-Fa-f]{4})_/g, (_match, hex: string) =>
    String.fromCharCode(parseInt(hex, 16)),
  );
}

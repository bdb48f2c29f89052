/** OOXML escapes characters XML cannot carry as `_xHHHH_` (e.g. `_x000D_` for a carriage return). */
export function unescapeOoxmlText(text: string): string {
  if (!text.includes('_x')) return text;
  return text.replace(/_x([0-9A-Fa-f]{4})_/g, (_match, hex: string) =>
    String.fromCharCode(parseInt(hex, 16)),
  );
}

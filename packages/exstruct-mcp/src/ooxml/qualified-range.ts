/** `'It''s'!A1:B2` → sheet `It's`, range `A1:B2` (sheet undefined when the range names none). */
export function splitQualifiedRange(text: string): { sheet: string | undefined; range: string } {
  const trimmed = text.trim();
  const bang = trimmed.lastIndexOf('!');
  if (bang < 0) return { sheet: undefined, range: trimmed };
  let sheet = trimmed.slice(0, bang).trim();
  if (sheet.length >= 2 && sheet.startsWith("'") && sheet.endsWith("'"))
    sheet = sheet.slice(1, -1).replace(/''/g, "'");
  return { sheet, range: trimmed.slice(bang + 1).trim() };
}

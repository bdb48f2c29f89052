/**
 * Google's `fields` system parameter ("files(id,name),nextPageToken", "sheets.properties(sheetId,title)"):
 * parsed strictly (a malformed mask is a 400, as on the real service) and applied to a response.
 */
export type Mask = Map<string, Mask | true>;

export function parseMask(text: string): Mask {
  let i = 0;
  const fail = (why: string): never => {
    throw new Error(`Invalid field selection "${text}": ${why} at ${i}`);
  };
  const name = () => {
    const start = i;
    while (i < text.length && /[A-Za-z0-9_$*]/.test(text[i]!)) i++;
    if (i === start) fail('expected a field name');
    return text.slice(start, i);
  };
  const list = (): Mask => {
    const mask: Mask = new Map();
    for (;;) {
      while (text[i] === ' ') i++;
      let key = name();
      let target: Mask = mask;
      // a.b.c → a(b(c))
      while (text[i] === '.') {
        i++;
        const inner = (target.get(key) instanceof Map ? target.get(key) : new Map()) as Mask;
        target.set(key, inner);
        target = inner;
        key = name();
      }
      if (text[i] === '(') {
        i++;
        const sub = list();
        if (text[i] !== ')') fail('expected )');
        i++;
        const existing = target.get(key);
        if (existing instanceof Map) for (const [k, v] of sub) existing.set(k, v);
        else target.set(key, sub);
      } else target.set(key, true);
      while (text[i] === ' ') i++;
      if (text[i] === ',') {
        i++;
        continue;
      }
      return mask;
    }
  };
  const mask = list();
  if (i !== text.length) fail('unexpected character');
  return mask;
}

export function applyMask(value: unknown, mask: Mask | true): unknown {
  if (mask === true || value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map((v) => applyMask(v, mask));
  if (mask.has('*')) return value;
  const out: Record<string, unknown> = {};
  for (const [key, sub] of mask) {
    const v = (value as Record<string, unknown>)[key];
    if (v !== undefined) out[key] = applyMask(v, sub);
  }
  return out;
}

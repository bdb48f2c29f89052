/**
 * The subset of Drive's query language Prismind uses, parsed strictly: `name = '…'`, `'id' in parents`,
 * `mimeType = / != '…'`, `trashed = false`, `and` / `or` / `not`, parentheses. A string must escape `'`
 * and `\` with a backslash, as Drive requires; anything else is a 400.
 */
import { BadRequest } from './docs-model.js';

export interface DriveFileLike {
  name: string;
  mimeType: string;
  parents: string[];
  trashed: boolean;
}

type Token = { kind: 'str'; value: string } | { kind: 'word'; value: string } | { kind: 'op'; value: string };

function tokenize(q: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < q.length) {
    const ch = q[i]!;
    if (ch === ' ') {
      i++;
    } else if (ch === "'") {
      let value = '';
      i++;
      for (;;) {
        if (i >= q.length) throw new BadRequest(`Invalid Value: unterminated string in q: ${q}`);
        const c = q[i]!;
        if (c === '\\') {
          const next = q[i + 1];
          if (next !== "'" && next !== '\\') throw new BadRequest(`Invalid Value: bad escape in q: ${q}`);
          value += next;
          i += 2;
        } else if (c === "'") {
          i++;
          break;
        } else {
          value += c;
          i++;
        }
      }
      tokens.push({ kind: 'str', value });
    } else if (ch === '(' || ch === ')' || ch === '=') {
      tokens.push({ kind: 'op', value: ch });
      i++;
    } else if (ch === '!' && q[i + 1] === '=') {
      tokens.push({ kind: 'op', value: '!=' });
      i += 2;
    } else if (/[A-Za-z]/.test(ch)) {
      const start = i;
      while (i < q.length && /[A-Za-z]/.test(q[i]!)) i++;
      tokens.push({ kind: 'word', value: q.slice(start, i) });
    } else {
      throw new BadRequest(`Invalid Value: unexpected "${ch}" in q: ${q}`);
    }
  }
  return tokens;
}

export function parseDriveQuery(q: string): (file: DriveFileLike) => boolean {
  const tokens = tokenize(q);
  let i = 0;
  const fail = (): never => {
    throw new BadRequest(`Invalid Value: cannot parse q: ${q}`);
  };
  const peek = () => tokens[i];
  const word = (value: string) => {
    const t = peek();
    if (t?.kind === 'word' && t.value === value) {
      i++;
      return true;
    }
    return false;
  };
  const expr = (): ((f: DriveFileLike) => boolean) => {
    let left = term();
    while (word('or')) {
      const a = left;
      const b = term();
      left = (f) => a(f) || b(f);
    }
    return left;
  };
  const term = (): ((f: DriveFileLike) => boolean) => {
    let left = factor();
    while (word('and')) {
      const a = left;
      const b = factor();
      left = (f) => a(f) && b(f);
    }
    return left;
  };
  const factor = (): ((f: DriveFileLike) => boolean) => {
    if (word('not')) {
      const inner = factor();
      return (f) => !inner(f);
    }
    const t = peek();
    if (t?.kind === 'op' && t.value === '(') {
      i++;
      const inner = expr();
      const close = peek();
      if (close?.kind !== 'op' || close.value !== ')') fail();
      i++;
      return inner;
    }
    if (t?.kind === 'str') {
      i++;
      if (!word('in') || !word('parents')) fail();
      return (f) => f.parents.includes(t.value);
    }
    if (t?.kind === 'word') {
      i++;
      const op = peek();
      if (op?.kind !== 'op' || (op.value !== '=' && op.value !== '!=')) fail();
      i++;
      const value = peek();
      i++;
      const negate = op!.value === '!=';
      if (t.value === 'trashed') {
        if (value?.kind !== 'word' || (value.value !== 'true' && value.value !== 'false')) fail();
        const want = value!.value === 'true';
        return (f) => (f.trashed === want) !== negate;
      }
      if (value?.kind !== 'str') fail();
      const text = (value as { value: string }).value;
      if (t.value === 'name') return (f) => (f.name === text) !== negate;
      if (t.value === 'mimeType') return (f) => (f.mimeType === text) !== negate;
    }
    return fail();
  };
  const result = expr();
  if (i !== tokens.length) fail();
  return result;
}

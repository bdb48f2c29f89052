import { createHash } from 'node:crypto';

/** Characters no file system accepts in a name (Windows is the strictest) and control characters. */
// eslint-disable-next-line no-control-regex -- control characters are exactly what must go
const FORBIDDEN = /[<>:"/\\|?*\u0000-\u001f\u007f]/g;
const RESERVED = /^(con|prn|aux|nul|com\d|lpt\d)(\..*)?$/i;
/** Bytes left for a name so that `<name>_001.md` and a temp file's suffix still fit in 255. */
const MAX_NAME_BYTES = 180;

/**
 * A folder or file name made from a display name: forbidden characters become `_`, leading and trailing
 * dots and spaces go, Windows device names get a `_`, and the name is cut to a safe byte length at a
 * character boundary. Never empty, never `.` or `..`.
 */
export function safeName(display: string, fallback: string): string {
  let name = display.normalize('NFC').replace(FORBIDDEN, '_').replace(/\s+/g, ' ').trim();
  name = name.replace(/^[.\s]+|[.\s]+$/g, '');
  if (RESERVED.test(name)) name = `_${name}`;
  while (Buffer.byteLength(name) > MAX_NAME_BYTES) name = [...name].slice(0, -1).join('');
  return name || fallback;
}

export function sha256(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

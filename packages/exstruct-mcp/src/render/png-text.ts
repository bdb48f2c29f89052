// PNG text chunks: how an image says it was drawn by this server, and for which workbook.
import { crc32, inflateSync } from 'node:zlib';

/** Text that tEXt can hold: Latin-1 without NUL (the PNG spec's rule for tEXt). */
const latin1Text = (value: string) => [...value].every((ch) => ch > '\0' && ch <= '\u00ff');

/**
 * Adds text chunks after IHDR (how the server recognises its own earlier images): tEXt for Latin-1
 * values, iTXt (UTF-8) for any other, so a workbook named 売上.xlsx is stored whole, not byte-clipped.
 */
export function withTextChunks(png: Buffer, text: Record<string, string>): Buffer {
  const ihdrEnd = 8 + 8 + png.readUInt32BE(8) + 4;
  const chunks = Object.entries(text).map(([keyword, value]) =>
    latin1Text(value)
      ? chunk('tEXt', [Buffer.from(keyword, 'latin1'), Buffer.from([0]), Buffer.from(value, 'latin1')])
      : // keyword, NUL, not compressed, method 0, no language tag, no translated keyword, UTF-8 text
        chunk('iTXt', [
          Buffer.from(keyword, 'latin1'),
          Buffer.from([0, 0, 0, 0, 0]),
          Buffer.from(value, 'utf8'),
        ]),
  );
  return Buffer.concat([png.subarray(0, ihdrEnd), ...chunks, png.subarray(ihdrEnd)]);
}

function chunk(type: string, parts: Buffer[]): Buffer {
  const data = Buffer.concat(parts);
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, 'latin1');
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), data])) >>> 0, 0);
  return Buffer.concat([head, data, crc]);
}

/** The tEXt and iTXt chunks of a PNG (empty for anything else). */
export function pngTextChunks(png: Buffer): Record<string, string> {
  const out: Record<string, string> = {};
  if (png.length < 8 || png.readUInt32BE(0) !== 0x89504e47) return out;
  let at = 8;
  while (at + 8 <= png.length) {
    const length = png.readUInt32BE(at);
    const type = png.toString('latin1', at + 4, at + 8);
    if (type === 'IDAT' || type === 'IEND') break;
    if ((type === 'tEXt' || type === 'iTXt') && at + 8 + length <= png.length) {
      const data = png.subarray(at + 8, at + 8 + length);
      const zero = data.indexOf(0);
      if (zero > 0) {
        const value = type === 'tEXt' ? data.toString('latin1', zero + 1) : internationalText(data, zero);
        if (value !== undefined) out[data.toString('latin1', 0, zero)] = value;
      }
    }
    at += 12 + length;
  }
  return out;
}

/** The UTF-8 text of an iTXt chunk whose keyword ends at `zero` (undefined when malformed). */
function internationalText(data: Buffer, zero: number): string | undefined {
  const compressed = data[zero + 1] === 1;
  const language = data.indexOf(0, zero + 3);
  const translated = language < 0 ? -1 : data.indexOf(0, language + 1);
  if (translated < 0) return undefined;
  const body = data.subarray(translated + 1);
  try {
    // A workbook's name is short: a compressed text that inflates past 64 KiB is no tag of ours.
    return (compressed ? inflateSync(body, { maxOutputLength: 64 * 1024 }) : body).toString('utf8');
  } catch {
    return undefined;
  }
}

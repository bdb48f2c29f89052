// PNG text chunks: how an image says it was drawn by this server, and for which workbook.
import { crc32 } from 'node:zlib';

/** Adds tEXt chunks after IHDR (how the server recognises its own earlier images). */
export function withTextChunks(png: Buffer, text: Record<string, string>): Buffer {
  const ihdrEnd = 8 + 8 + png.readUInt32BE(8) + 4;
  const chunks = Object.entries(text).map(([keyword, value]) => {
    const data = Buffer.concat([
      Buffer.from(keyword, 'latin1'),
      Buffer.from([0]),
      Buffer.from(value, 'latin1'),
    ]);
    const head = Buffer.alloc(8);
    head.writeUInt32BE(data.length, 0);
    head.write('tEXt', 4, 'latin1');
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), data])) >>> 0, 0);
    return Buffer.concat([head, data, crc]);
  });
  return Buffer.concat([png.subarray(0, ihdrEnd), ...chunks, png.subarray(ihdrEnd)]);
}

/** The tEXt chunks of a PNG (empty for anything else). */
export function pngTextChunks(png: Buffer): Record<string, string> {
  const out: Record<string, string> = {};
  if (png.length < 8 || png.readUInt32BE(0) !== 0x89504e47) return out;
  let at = 8;
  while (at + 8 <= png.length) {
    const length = png.readUInt32BE(at);
    const type = png.toString('latin1', at + 4, at + 8);
    if (type === 'IDAT' || type === 'IEND') break;
    if (type === 'tEXt' && at + 8 + length <= png.length) {
      const data = png.subarray(at + 8, at + 8 + length);
      const zero = data.indexOf(0);
      if (zero > 0) out[data.toString('latin1', 0, zero)] = data.toString('latin1', zero + 1);
    }
    at += 12 + length;
  }
  return out;
}

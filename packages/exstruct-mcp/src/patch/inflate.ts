import { Transform, type Readable } from 'node:stream';
import zlib from 'node:zlib';
import { ToolError } from '@mcp-workbench/core/engine';
import { DEFAULT_ZIP_LIMITS, type ZipArchive } from '../ooxml/zip-archive.js';
import type { EarlyBlocks } from './block-deflate.js';

const CHUNK = 256 * 1024;

/**
 * A part's uncompressed bytes, inflated with large chunks (about twice as fast as yauzl's 16 KiB
 * stream on a 50 MB sheet). Keeps ZipArchive's zip-bomb caps: bytes are counted while inflating
 * and the total must equal the size the central directory declares.
 */
export async function openInflated(archive: ZipArchive, part: string): Promise<Readable> {
  const { stream, entry } = await archive.openCopyStream(part);
  if (entry.compressionMethod === 0) return stream;
  if (entry.compressionMethod !== 8) {
    stream.destroy();
    return archive.openStream(part);
  }
  const limits = DEFAULT_ZIP_LIMITS;
  const declared = entry.uncompressedSize;
  if (declared > limits.maxEntryBytes) {
    stream.destroy();
    throw bomb(part, `declares ${declared} bytes, above the ${limits.maxEntryBytes} limit`);
  }
  let seen = 0;
  const inflate = zlib.createInflateRaw({ chunkSize: CHUNK });
  const guard = new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      seen += chunk.length;
      if (seen > declared) callback(bomb(part, 'inflates beyond its declared size'));
      else callback(null, chunk);
    },
    flush(callback) {
      callback(
        seen === declared ? null : bomb(part, `inflated to ${seen} bytes, not the declared ${declared}`),
      );
    },
  });
  stream.on('error', (error) => guard.destroy(error));
  inflate.on('error', (error) => guard.destroy(error));
  return stream.pipe(inflate).pipe(guard);
}

function bomb(part: string, what: string): ToolError {
  return new ToolError('ZIP_BOMB', `Part "${part}" ${what}; it was not read.`, {
    hint: 'The file is damaged or crafted; open and re-save it in Excel.',
  });
}

/** Parts up to this size stay in memory between the loading and the writing pass (one inflate). */
export const KEEP_INFLATED_MAX = 96 * 1024 * 1024;

/** Passes a stream through while keeping its chunks, when the part is small enough to keep. */
export async function* keepChunks(
  source: AsyncIterable<Buffer>,
  keep: Buffer[] | undefined,
  /** Also handed each chunk, to deflate blocks ahead. */
  early?: EarlyBlocks,
): AsyncGenerator<Buffer> {
  for await (const chunk of source) {
    keep?.push(chunk);
    early?.add(chunk);
    yield chunk;
  }
}

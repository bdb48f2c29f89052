// The physical floors the tool calls are measured against (issue 26 §1), each the least any reader or
// writer of these workbooks must do, in plain Node on the same machine, in the same run:
// - extraction: inflate every sheet's XML and find every cell's start tag (`<c ` / `<c>` / `<c/`),
//   nothing else (no values, no output);
// - a one-cell patch: inflate that sheet and deflate it again at the level the server writes (6), the
//   package's other parts copied still compressed, all written to a file.
import { createWriteStream } from 'node:fs';
import { readFile } from 'node:fs/promises';
import zlib from 'node:zlib';

const CHUNK = 1 << 20;
const LT = 0x3c;
const C = 0x63;

/**
 * Counts the cell start tags of one inflated piece. `carry` is what the previous piece ended with that
 * may begin a tag (`<` or `<c`); returns the count and the new carry.
 */
function countCells(chunk, carry) {
  let cells = 0;
  if (carry === 1 && chunk[0] === C && isTagEnd(chunk[1])) cells++;
  if (carry === 2 && isTagEnd(chunk[0])) cells++;
  for (let at = chunk.indexOf(LT); at !== -1 && at + 2 < chunk.length; at = chunk.indexOf(LT, at + 2)) {
    if (chunk[at + 1] === C && isTagEnd(chunk[at + 2])) cells++;
  }
  const n = chunk.length;
  const next = chunk[n - 1] === LT ? 1 : chunk[n - 2] === LT && chunk[n - 1] === C ? 2 : 0;
  return [cells, next];
}

function isTagEnd(byte) {
  return byte === 0x20 || byte === 0x3e || byte === 0x2f;
}

/** Entries of a zip read straight from its central directory (no ZIP64: the bench workbooks are small). */
function entries(zip) {
  let end = zip.length - 22;
  while (end >= 0 && zip.readUInt32LE(end) !== 0x06054b50) end--;
  const count = zip.readUInt16LE(end + 10);
  let at = zip.readUInt32LE(end + 16);
  const list = [];
  for (let i = 0; i < count; i++) {
    const method = zip.readUInt16LE(at + 10);
    const compressed = zip.readUInt32LE(at + 20);
    const size = zip.readUInt32LE(at + 24);
    const nameLength = zip.readUInt16LE(at + 28);
    const extra = zip.readUInt16LE(at + 30);
    const comment = zip.readUInt16LE(at + 32);
    const local = zip.readUInt32LE(at + 42);
    const name = zip.toString('utf8', at + 46, at + 46 + nameLength);
    const dataAt = local + 30 + zip.readUInt16LE(local + 26) + zip.readUInt16LE(local + 28);
    list.push({ name, method, size, data: zip.subarray(dataAt, dataAt + compressed) });
    at += 46 + nameLength + extra + comment;
  }
  return list;
}

const isSheet = (name) => /^xl\/worksheets\/[^/]+\.xml$/i.test(name);

/**
 * Inflates every sheet of the workbook and counts its cell start tags: the extraction floor. The file
 * is read at once; small parts inflate in one call, large ones stream in 1 MiB pieces (inflation on
 * the thread pool, the search on this thread), as fast plain Node gets.
 */
export async function extractionFloor(file) {
  const zip = await readFile(file);
  let cells = 0;
  for (const entry of entries(zip).filter((e) => isSheet(e.name))) {
    if (entry.method === 0 || entry.size <= CHUNK) {
      const xml = entry.method === 0 ? entry.data : zlib.inflateRawSync(entry.data);
      cells += countCells(xml, 0)[0];
      continue;
    }
    const inflate = zlib.createInflateRaw({ chunkSize: CHUNK });
    inflate.end(entry.data);
    let carry = 0;
    for await (const chunk of inflate) {
      const [found, next] = countCells(chunk, carry);
      cells += found;
      carry = next;
    }
  }
  return cells;
}

/**
 * Inflates `sheet` and deflates it again at level 6 into `output`, writing every other part's
 * compressed bytes as they are: the floor of a one-cell patch (a zip writer's headers are a few bytes
 * per part, left out).
 */
export async function patchFloor(file, sheet, output) {
  const zip = await readFile(file);
  const out = createWriteStream(output);
  const write = (bytes) =>
    out.write(bytes) ? undefined : new Promise((resolve) => out.once('drain', resolve));
  try {
    for (const entry of entries(zip)) {
      if (entry.name !== sheet) {
        await write(entry.data);
        continue;
      }
      const inflate = zlib.createInflateRaw({ chunkSize: CHUNK });
      const deflate = zlib.createDeflateRaw({ level: 6, chunkSize: CHUNK });
      inflate.end(entry.data);
      inflate.pipe(deflate);
      for await (const chunk of deflate) await write(chunk);
    }
  } finally {
    await new Promise((resolve, reject) => out.end((error) => (error ? reject(error) : resolve())));
  }
}

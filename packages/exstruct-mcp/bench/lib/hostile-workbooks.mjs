// Hostile workbooks for the exhaustion benchmark (issue 14, item 8), each a minimal SpreadsheetML package
// around one oversized part, written once per size into .bench-data/. Each stays under the zip caps
// (1 GiB per entry, ratio ≤ 1000), so only the engine's own bounds stand between it and the machine.
import { createWriteStream, existsSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import path from 'node:path';
import { finished } from 'node:stream/promises';
import zlib from 'node:zlib';
import { BENCH_DATA_DIR } from './big-workbook.mjs';

const NS =
  'xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"';
const REL = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';
const PKG_REL = 'http://schemas.openxmlformats.org/package/2006/relationships';

/** A part given as a generator of string pieces (so a 400 MB part never exists as one string). */
function* pieces(...parts) {
  for (const part of parts) {
    if (typeof part === 'string') yield part;
    else yield* part;
  }
}

function* repeat(text, times) {
  const block = text.repeat(Math.max(1, Math.floor((1 << 20) / text.length)));
  const perBlock = block.length / text.length;
  let left = times;
  for (; left >= perBlock; left -= perBlock) yield block;
  if (left > 0) yield text.repeat(left);
}

/** Whitespace that deflate cannot squeeze past the ratio cap (a varied mix of space, tab, CR, LF). */
function* whitespace(bytes) {
  let seed = 12345;
  const block = Buffer.alloc(1 << 20);
  const chars = [0x20, 0x09, 0x0a, 0x0d];
  for (let left = bytes; left > 0; left -= block.length) {
    for (let i = 0; i < block.length; i++) {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      block[i] = chars[seed >> 29];
    }
    yield block.toString('latin1', 0, Math.min(left, block.length));
  }
}

/** The package's fixed parts around one worksheet (and shared strings when given). */
function skeleton(withStrings) {
  return {
    '[Content_Types].xml':
      '<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">' +
      '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>' +
      '<Default Extension="xml" ContentType="application/xml"/></Types>',
    '_rels/.rels': `<?xml version="1.0"?><Relationships xmlns="${PKG_REL}"><Relationship Id="rId1" Type="${REL}/officeDocument" Target="xl/workbook.xml"/></Relationships>`,
    'xl/workbook.xml': `<?xml version="1.0" encoding="UTF-8"?><workbook ${NS}><sheets><sheet name="Data" sheetId="1" r:id="rSheet1"/></sheets></workbook>`,
    'xl/_rels/workbook.xml.rels':
      `<?xml version="1.0"?><Relationships xmlns="${PKG_REL}">` +
      `<Relationship Id="rSheet1" Type="${REL}/worksheet" Target="worksheets/sheet1.xml"/>` +
      `<Relationship Id="rStyles" Type="${REL}/styles" Target="styles.xml"/>` +
      (withStrings
        ? `<Relationship Id="rStrings" Type="${REL}/sharedStrings" Target="sharedStrings.xml"/>`
        : '') +
      '</Relationships>',
    'xl/styles.xml': `<?xml version="1.0" encoding="UTF-8"?><styleSheet ${NS}><fonts count="1"><font/></fonts><fills count="2"><fill><patternFill patternType="none"/></fill><fill><patternFill patternType="gray125"/></fill></fills><borders count="1"><border/></borders><cellXfs count="1"><xf numFmtId="0" fontId="0" fillId="0" borderId="0"/></cellXfs></styleSheet>`,
  };
}

const sheet = (...body) =>
  pieces(`<?xml version="1.0" encoding="UTF-8"?><worksheet ${NS}>`, ...body, '</worksheet>');

/** The hostile cases, by name: each builds its parts for a size parameter `n`. */
export const HOSTILE_CASES = {
  /** `n` rows of 10 numbers: an ordinary sheet, to merge whole (A:XFD, 17 billion addresses). */
  grid: (n) => ({
    ...skeleton(false),
    'xl/worksheets/sheet1.xml': sheet(
      '<sheetData>',
      (function* rows() {
        for (let r = 1; r <= n; r++) {
          let cells = '';
          for (let c = 0; c < 10; c++)
            cells += `<c r="${String.fromCharCode(65 + c)}${r}"><v>${r * 10 + c}</v></c>`;
          yield `<row r="${r}">${cells}</row>`;
        }
      })(),
      '</sheetData>',
    ),
  }),
  /** `n` elements nested inside a cell (the 20 M in a 1.5 MB file exhausted the heap). */
  nesting: (n) => {
    // Element names vary (a–z), as in a file that deflate cannot squeeze past the ratio cap.
    const names = Buffer.alloc(n);
    let seed = 2024;
    for (let i = 0; i < n; i++) {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      names[i] = 0x61 + (seed % 26);
    }
    function* tags(open) {
      const step = 1 << 18;
      for (let at = 0; at < n; at += step) {
        let text = '';
        for (let k = 0; k < step && at + k < n; k++) {
          const name = String.fromCharCode(names[open ? at + k : n - 1 - at - k]);
          text += open ? `<${name}>` : `</${name}>`;
        }
        yield text;
      }
    }
    return {
      ...skeleton(false),
      'xl/worksheets/sheet1.xml': sheet(
        '<sheetData><row r="1"><c r="A1" t="inlineStr"><is>',
        tags(true),
        tags(false),
        '</is></c></row></sheetData>',
      ),
    };
  },
  /** One row holding `n` bytes of whitespace between two cells: a long run without a row break. */
  'long-row': (n) => ({
    ...skeleton(false),
    'xl/worksheets/sheet1.xml': sheet(
      '<sheetData><row r="1"><c r="A1"><v>1</v></c>',
      whitespace(n),
      '<c r="B1"><v>2</v></c></row><row r="2"><c r="A2"><v>3</v></c></row></sheetData>',
    ),
  }),
  /** Shared string 0 is `n` characters long; the sheet's A1 shows it (patched: B1 is written). */
  'long-shared-string': (n) => ({
    ...skeleton(true),
    'xl/sharedStrings.xml': pieces(
      `<?xml version="1.0" encoding="UTF-8"?><sst ${NS} count="2" uniqueCount="2"><si><t>`,
      repeat('abcdefgh', Math.ceil(n / 8)),
      '</t></si><si><t>short</t></si></sst>',
    ),
    'xl/worksheets/sheet1.xml': sheet(
      '<sheetData><row r="1"><c r="A1" t="s"><v>0</v></c><c r="C1" t="s"><v>1</v></c></row></sheetData>',
    ),
  }),
};

/** Writes a zip of the parts (deflated, streamed), each part's pieces through one deflater. */
async function writeZip(file, parts) {
  const out = createWriteStream(file);
  const central = [];
  let offset = 0;
  const write = (buf) =>
    new Promise((resolve, reject) => {
      offset += buf.length;
      out.write(buf, (error) => (error ? reject(error) : resolve()));
    });
  for (const [name, content] of Object.entries(parts)) {
    const nameBytes = Buffer.from(name, 'utf8');
    // Sizes and CRC go in a data descriptor after the data (bit 3), so the part can stream.
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(0x0808, 6);
    local.writeUInt16LE(8, 8);
    local.writeUInt16LE(nameBytes.length, 26);
    const start = offset;
    await write(Buffer.concat([local, nameBytes]));
    let crc = 0;
    let size = 0;
    let packed = 0;
    const deflate = zlib.createDeflateRaw({ level: 6 });
    const drained = (async () => {
      for await (const chunk of deflate) {
        packed += chunk.length;
        await write(chunk);
      }
    })();
    for (const piece of typeof content === 'string' ? [content] : content) {
      const bytes = Buffer.from(piece, 'utf8');
      crc = zlib.crc32(bytes, crc);
      size += bytes.length;
      if (!deflate.write(bytes)) await new Promise((resolve) => deflate.once('drain', resolve));
    }
    deflate.end();
    await drained;
    const descriptor = Buffer.alloc(16);
    descriptor.writeUInt32LE(0x08074b50, 0);
    descriptor.writeUInt32LE(crc >>> 0, 4);
    descriptor.writeUInt32LE(packed, 8);
    descriptor.writeUInt32LE(size, 12);
    await write(descriptor);
    const entry = Buffer.alloc(46);
    entry.writeUInt32LE(0x02014b50, 0);
    entry.writeUInt16LE(20, 4);
    entry.writeUInt16LE(20, 6);
    entry.writeUInt16LE(0x0808, 8);
    entry.writeUInt16LE(8, 10);
    entry.writeUInt32LE(crc >>> 0, 16);
    entry.writeUInt32LE(packed, 20);
    entry.writeUInt32LE(size, 24);
    entry.writeUInt16LE(nameBytes.length, 28);
    entry.writeUInt32LE(start, 42);
    central.push(entry, nameBytes);
  }
  const directory = Buffer.concat(central);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(central.length / 2, 8);
  end.writeUInt16LE(central.length / 2, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  await write(Buffer.concat([directory, end]));
  out.end();
  await finished(out);
}

/** The path of the hostile workbook `name` at size `n`, written on first use. */
export async function ensureHostileWorkbook(name, n) {
  const target = path.join(BENCH_DATA_DIR, `hostile-${name}-${n}.xlsx`);
  if (existsSync(target)) return target;
  mkdirSync(BENCH_DATA_DIR, { recursive: true });
  const temp = `${target}.partial`;
  rmSync(temp, { force: true });
  await writeZip(temp, HOSTILE_CASES[name](n));
  renameSync(temp, target);
  return target;
}

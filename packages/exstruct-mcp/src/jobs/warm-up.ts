// The extraction thread's warm-up (issue 26 §1): right after it has loaded its modules, the thread
// extracts a small workbook made here in memory, so that a fresh server's first exstruct_extract runs
// code V8 has already compiled and optimised (cold, the first call of a big workbook took 1.5–2× the
// CPU of the second). It reads no file and writes nothing; it stops as soon as a real job arrives.
import { Buffer } from 'node:buffer';
import { setImmediate as nextTurn } from 'node:timers/promises';
import zlib from 'node:zlib';
import type { FileAccess, OpenedFile } from '@mcp-workbench/core/engine';
import { ByteSink, CHUNK_BYTES } from '../extract/byte-sink.js';
import { extractAsJob } from './extract-job.js';

const NS_MAIN = 'http://schemas.openxmlformats.org/spreadsheetml/2006/main';
const NS_REL = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';
const NS_PKG = 'http://schemas.openxmlformats.org/package/2006/relationships';
const XML_HEAD = '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n';

// Excel declares x14ac and marks every row with it: the row reader's path for prefixed attributes must be
// warm too (without it, a first call of an Excel workbook deoptimised the row and cell readers).
const EXCEL_NS =
  'xmlns:mc="http://schemas.openxmlformats.org/markup-compatibility/2006" mc:Ignorable="x14ac" ' +
  'xmlns:x14ac="http://schemas.microsoft.com/office/spreadsheetml/2009/9/ac"';
const DY = 'x14ac:dyDescent="0.25"';

const LABELS = ['North', 'South', 'East', 'West', 'Центр', '東京', 'R&amp;D', 'Ops'];

/**
 * Column D's decimal, written from integers (formatting doubles here would cost more than reading them);
 * now and then below 1 (`0.37`, and `0.05` with its run of zeros: their own paths in the row reader).
 */
function amount(r: number, cents: number): string {
  if (r % 16 === 0) return `0.0${(cents % 9) + 1}`;
  if (r % 8 === 0) return `0.${cents % 100}`;
  return `${(cents / 100) | 0}.${cents % 100}`;
}

/**
 * A sheet of `rows` rows of the value kinds producers write most (as Excel writes them), as UTF-8 bytes.
 * Each row is written into one buffer as it is made: an array of every row's strings joined at the end
 * cost a fresh thread ~100 ms, most of it in the garbage collector, before the warm-up could start.
 */
function sheetXml(rows: number, wide: boolean): Buffer {
  const out = Buffer.allocUnsafe(rows * (wide ? 700 : 400) + 1024);
  let at = 0;
  const put = (text: string) => void (at += out.write(text, at, 'latin1'));
  put(
    `${XML_HEAD}<worksheet xmlns="${NS_MAIN}" xmlns:r="${NS_REL}" ${EXCEL_NS}><dimension ref="A1:J${rows}"/>` +
      `<sheetViews><sheetView workbookViewId="0"/></sheetViews><sheetFormatPr defaultRowHeight="15" ${DY}/>` +
      '<cols><col min="1" max="1" width="12" customWidth="1"/></cols><sheetData>' +
      `<row r="1" spans="1:5" ${DY}><c r="A1" t="s"><v>0</v></c><c r="B1" t="s"><v>1</v></c>` +
      '<c r="C1" t="s"><v>2</v></c><c r="D1" t="s"><v>3</v></c><c r="E1" t="s"><v>4</v></c></row>',
  );
  for (let r = 2; r <= rows; r++) {
    const cents = (r * 7919) % 100000;
    const total = cents * 11;
    put(
      `<row r="${r}" spans="1:${wide ? 10 : 5}" ${DY}><c r="A${r}"><v>${r - 1}</v></c>` +
        `<c r="B${r}" t="s"><v>${5 + (r % LABELS.length)}</v></c><c r="C${r}" s="1"><v>${45000 + r}</v></c>` +
        `<c r="D${r}"><v>${amount(r, cents)}</v></c>` +
        `<c r="E${r}"><f>D${r}*1.1</f><v>${(total / 1000) | 0}.${total % 1000}</v></c>`,
    );
    if (wide) {
      put(
        `<c r="F${r}" t="inlineStr"><is><t>item ${r}</t></is></c><c r="G${r}" t="b"><v>${r & 1}</v></c>` +
          `<c r="H${r}" s="2"><v>0.${r % 97}</v></c><c r="I${r}"><v>-${r * 3}</v></c>` +
          `<c r="J${r}" t="str"><f>A${r}&amp;"x"</f><v>${r}x</v></c>`,
      );
    }
    put('</row>');
  }
  put(
    '</sheetData><mergeCells count="1"><mergeCell ref="A1:B1"/></mergeCells>' +
      '<pageMargins left="0.7" right="0.7" top="0.75" bottom="0.75" header="0.3" footer="0.3"/>' +
      '<pageSetup orientation="portrait" horizontalDpi="300" verticalDpi="300"/>' +
      '</worksheet>',
  );
  return out.subarray(0, at);
}

const SMALL_SHEETS = 30;
const SMALL = Array.from({ length: SMALL_SHEETS }, (_, i) => `S${i + 1}`);
const DATA_SHEETS = 40;
const DATA_ROWS = 150;
const DATA = Array.from({ length: DATA_SHEETS }, (_, i) => `Data${i + 1}`);
/**
 * A workbook of 50 tiny sheets (3 rows each), read 12 times a round: the work done once per sheet
 * (opening its part, its surroundings, table detection, its JSON's head and tail) runs 1,200 more times,
 * enough for V8 to optimise most of it at idle; the 70 sheets of the warm-up workbook left it to a real
 * call. Read 4 times a round (2026-11-29, 00:45 UTC), the first 1,000-sheet call a second after the
 * handshake went from 436-465 to 355-389 ms. Read 12 times, with each read as a job makes it (its
 * options' shape, its rows let go once written: extractAsJob) and dates' JSON no longer from a 512 KB
 * array per read (extract/row-store.ts): 256-281 ms (median 266) against 348-381 (361), the second call
 * 207-228 against 236-255 ms, peak 93.9-97.3 (median 96.4) against 93.3-95.5 MB (12 rounds alternated,
 * 09:10 UTC). 12 reads with that array kept: peaks up to 100.3 MB; 300 tiny sheets in the warm-up
 * workbook itself made the thread 101 MB before any call (bench/HISTORY.md).
 */
const TINY_SHEETS = 50;
const TINY_READS_PER_ROUND = 12;
const TINY = Array.from({ length: TINY_SHEETS }, (_, i) => `T${i + 1}`);
const NAMES = [...SMALL, ...DATA];

/** The sheet named `name`: a 150-row one (`Data…`), a tiny one (`T…`), else a small wide one. */
function sheetFor(name: string): Buffer {
  if (name.startsWith('Data')) return sheetXml(DATA_ROWS, false);
  if (name.startsWith('T')) return sheetXml(3, true);
  return sheetXml(20, true);
}

/**
 * The parts of the warm-up workbook: 30 small sheets and 40 of 150 rows (6,000 rows: enough for V8 to
 * optimise the row readers), each read in one piece; `names`: only these sheets (`T…`: the tiny ones,
 * see TINY_SHEETS). No sheet big enough to be read as a stream (over 1 MiB): its megabyte buffers, once
 * freed, raise glibc's mmap threshold for the whole process (to the largest freed size, up to 32 MB),
 * after which the buffers of later calls came from malloc's arenas, which keep what is freed: a server
 * idled 1 s peaked ~8 MB higher in its 1,000-sheet call. A first call of a big sheet gained nothing
 * from warming the stream path.
 */
function parts(names = NAMES): Array<[string, string | Buffer]> {
  const sheetPart = (i: number) => `xl/worksheets/sheet${i + 1}.xml`;
  const strings = ['id', 'label', 'date', 'amount', 'total', ...LABELS];
  return [
    [
      '[Content_Types].xml',
      `${XML_HEAD}<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">` +
        '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>' +
        '<Default Extension="xml" ContentType="application/xml"/>' +
        '<Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/>' +
        names
          .map(
            (_, i) =>
              `<Override PartName="/${sheetPart(i)}" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/>`,
          )
          .join('') +
        '<Override PartName="/xl/styles.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.styles+xml"/>' +
        '<Override PartName="/xl/sharedStrings.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sharedStrings+xml"/>' +
        '</Types>',
    ],
    [
      '_rels/.rels',
      `${XML_HEAD}<Relationships xmlns="${NS_PKG}"><Relationship Id="rId1" Type="${NS_REL}/officeDocument" Target="xl/workbook.xml"/></Relationships>`,
    ],
    [
      'xl/workbook.xml',
      `${XML_HEAD}<workbook xmlns="${NS_MAIN}" xmlns:r="${NS_REL}"><sheets>` +
        names.map((name, i) => `<sheet name="${name}" sheetId="${i + 1}" r:id="rId${i + 1}"/>`).join('') +
        '</sheets></workbook>',
    ],
    [
      'xl/_rels/workbook.xml.rels',
      `${XML_HEAD}<Relationships xmlns="${NS_PKG}">` +
        names
          .map(
            (_, i) =>
              `<Relationship Id="rId${i + 1}" Type="${NS_REL}/worksheet" Target="worksheets/sheet${i + 1}.xml"/>`,
          )
          .join('') +
        `<Relationship Id="rId${names.length + 1}" Type="${NS_REL}/styles" Target="styles.xml"/>` +
        `<Relationship Id="rId${names.length + 2}" Type="${NS_REL}/sharedStrings" Target="sharedStrings.xml"/>` +
        '</Relationships>',
    ],
    [
      'xl/styles.xml',
      `${XML_HEAD}<styleSheet xmlns="${NS_MAIN}"><numFmts count="1"><numFmt numFmtId="164" formatCode="0.00%"/></numFmts>` +
        '<fonts count="1"><font><sz val="11"/><name val="Calibri"/></font></fonts>' +
        '<fills count="2"><fill><patternFill patternType="none"/></fill><fill><patternFill patternType="gray125"/></fill></fills>' +
        '<borders count="1"><border><left/><right/><top/><bottom/><diagonal/></border></borders>' +
        '<cellStyleXfs count="1"><xf numFmtId="0" fontId="0" fillId="0" borderId="0"/></cellStyleXfs>' +
        '<cellXfs count="3"><xf numFmtId="0" fontId="0" fillId="0" borderId="0" xfId="0"/>' +
        '<xf numFmtId="14" fontId="0" fillId="0" borderId="0" xfId="0" applyNumberFormat="1"/>' +
        '<xf numFmtId="164" fontId="0" fillId="0" borderId="0" xfId="0" applyNumberFormat="1"/></cellXfs>' +
        // As Excel ends its styles: prefixed elements, declared on their own (their own path in the tokenizer).
        '<extLst><ext uri="{EB79DEF2-80B8-43e5-95BD-54CBDDF9020C}" xmlns:x14="http://schemas.microsoft.com/office/spreadsheetml/2009/9/main">' +
        '<x14:slicerStyles defaultSlicerStyle="SlicerStyleLight1"/></ext></extLst></styleSheet>',
    ],
    [
      'xl/sharedStrings.xml',
      `${XML_HEAD}<sst xmlns="${NS_MAIN}" count="${strings.length}" uniqueCount="${strings.length}">` +
        strings.map((s) => `<si><t>${s}</t></si>`).join('') +
        '</sst>',
    ],
    ...names.map((_, i): [string, Buffer] => [sheetPart(i), sheetFor(names[i]!)]),
  ];
}

/** A ZIP of the parts, deflated (level 1: the warm-up is about reading, not size). */
function zipOf(entries: Array<[string, string | Buffer]>): Buffer {
  const chunks: Buffer[] = [];
  const central: Buffer[] = [];
  let offset = 0;
  for (const [name, text] of entries) {
    const data = typeof text === 'string' ? Buffer.from(text, 'utf8') : text;
    const packed = zlib.deflateRawSync(data, { level: 1 });
    const fileName = Buffer.from(name, 'utf8');
    const crc = zlib.crc32(data);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(8, 8);
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(packed.length, 18);
    local.writeUInt32LE(data.length, 22);
    local.writeUInt16LE(fileName.length, 26);
    const record = Buffer.alloc(46);
    record.writeUInt32LE(0x02014b50, 0);
    record.writeUInt16LE(20, 4);
    record.writeUInt16LE(20, 6);
    record.writeUInt16LE(8, 10);
    record.writeUInt32LE(crc, 16);
    record.writeUInt32LE(packed.length, 20);
    record.writeUInt32LE(data.length, 24);
    record.writeUInt16LE(fileName.length, 28);
    record.writeUInt32LE(offset, 42);
    chunks.push(local, fileName, packed);
    central.push(record, fileName);
    offset += local.length + fileName.length + packed.length;
  }
  const directory = Buffer.concat(central);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...chunks, directory, end]);
}

/** The workbook of the warm-up, as .xlsx bytes. */
export function warmUpWorkbook(): Buffer {
  return zipOf(parts());
}

/** The workbook of tiny sheets the warm-up reads after each round's other sheets. */
export function tinyWarmUpWorkbook(): Buffer {
  return zipOf(parts(TINY));
}

/** The workbook of the quick warm-up (see quickWarmUp): three small sheets. */
export function quickWarmUpWorkbook(): Buffer {
  return zipOf(parts(NAMES.slice(0, 3)));
}

/** A FileAccess that lends `bytes` as the one file `name`, and nothing else. */
function memoryFiles(name: string, bytes: Buffer): FileAccess {
  const refuse = (): never => {
    throw new Error('The warm-up reads only its own workbook.');
  };
  const stats = { size: bytes.length, isFile: () => true, isDirectory: () => false };
  const handle = {
    fd: -1,
    async read(buffer: Buffer, offset: number, length: number, position: number) {
      const bytesRead = bytes.copy(buffer, offset, position, Math.min(bytes.length, position + length));
      return { bytesRead, buffer };
    },
    async stat() {
      return stats;
    },
    async close() {},
  };
  return {
    async openFile(requested: string): Promise<OpenedFile> {
      if (requested !== name) refuse();
      return { handle, path: name, stats } as unknown as OpenedFile;
    },
    readFile: refuse,
    writeFileAtomic: refuse,
    withAtomicFile: refuse,
    makeDirectory: refuse,
  };
}

const WARM_UP_NAME = 'warm-up.xlsx';

/**
 * Extracts the warm-up workbook of `files` (its `sheets`, else all) as an extraction job does (standard
 * mode, compact JSON, each sheet's rows let go once written; jobs/extract-job.ts), through a sink that
 * flushes, here to nowhere.
 */
async function readAsJob(files: FileAccess, sheets?: string[]): Promise<void> {
  const document = new ByteSink(CHUNK_BYTES, () => undefined);
  await extractAsJob(WARM_UP_NAME, {
    mode: 'standard',
    alphaCol: false,
    files,
    jsonRows: true,
    document,
    keepRows: false,
    sheets,
  });
  document.finish();
}

/**
 * Extracts the warm-up workbook `rounds` times as an extraction job does (standard mode, compact JSON):
 * its small sheets, then its 150-row ones, then the tiny sheets' workbook 12 times, each after a turn
 * of the event loop; stops before the next when `stop()` says a job has come (so a job waits for one
 * piece at most). Never throws: a warm-up that fails only leaves the code cold.
 */
export async function warmUp(stop: () => boolean, rounds = 2): Promise<void> {
  try {
    await nextTurn();
    if (stop()) return;
    const files = memoryFiles(WARM_UP_NAME, warmUpWorkbook());
    const tinyFiles = memoryFiles(WARM_UP_NAME, tinyWarmUpWorkbook());
    for (let round = 0; round < rounds; round++) {
      // The small sheets first: cold, a workbook of many small sheets paid most (2-3× its second call).
      for (const sheets of [SMALL, DATA]) {
        await nextTurn();
        if (stop()) return;
        await readAsJob(files, sheets);
      }
      for (let read = 0; read < TINY_READS_PER_ROUND; read++) {
        await nextTurn();
        if (stop()) return;
        await readAsJob(tinyFiles);
      }
    }
  } catch {
    // Cold code is only slower.
  }
}

/**
 * Extracts the quick warm-up workbook once, as a job does: what a thread started for a job (without the
 * warm-up) does before that job. A thread's first extraction changes the shapes of objects every
 * extraction makes (the output sink's offset field turns mutable at its first flush; a typed-array field
 * of the style table generalises), so code V8 optimised during the first job was thrown away during the
 * second (--trace-deopt: 14 deoptimisations in it, none after this); 1,000 small sheets took 325-337 ms
 * of CPU in a second job, 250-300 ms after this (~170 warm). Done first on a tiny workbook, the change
 * comes before anything is optimised; its ~25 ms are mostly compiling code the job would compile anyway.
 * Never throws.
 */
export async function quickWarmUp(): Promise<void> {
  try {
    await readAsJob(memoryFiles(WARM_UP_NAME, quickWarmUpWorkbook()));
  } catch {
    // Cold code is only slower.
  }
}

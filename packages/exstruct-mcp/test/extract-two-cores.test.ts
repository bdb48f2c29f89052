// A big sheet's rows read by the fast parser on two cores (parallel-rows.ts): batches of rows read by the
// rows thread and by this one, joined in sheet order. The built engine (dist, where the thread's script
// exists) must write byte for byte what one pass writes, and read on one thread what batches cannot.
import path from 'node:path';
import { writeFile } from 'node:fs/promises';
import { afterAll, beforeAll, expect, it } from 'vitest';
import {
  DATE_TIME_BORDER_STYLES as STYLES,
  FIXTURES,
  packageParts,
  tempDir,
  zipBytes,
  type TempDir,
} from './extract-helpers.js';

interface Engine {
  extractWorkbook(
    file: string,
    options: {
      batches?: false | { workerMinBytes?: number; threads?: number };
      fastRows?: boolean;
      document?: unknown;
    },
  ): Promise<{
    serialize(format: 'json'): string;
    sheets: Array<{ parsedWith: { fast: boolean; batches: boolean; workers: number } }>;
  }>;
}
interface Sink {
  offset: number;
  views(from: number, to: number): Uint8Array[];
}

const dist = path.join(FIXTURES, '..', '..', 'dist', 'extract');
let engine: Engine;
let ByteSink: new () => Sink;
let tmp: TempDir;

const SHARED = ['north', 'süd ✓', ' ', '12', 'a "quoted" \\ text'];

/** Row `r` of many kinds of cells (about 400 bytes). */
function richRow(r: number, rowAttrs = ''): string {
  const numbers = ['007', '-0', '1.50', '1E5', '0.000001', '123456789012345678', '-3.25', `${r}.${r % 97}`];
  const cells = [
    `<c r="A${r}"><v>${r}</v></c>`,
    `<c r="B${r}" t="s"><v>${r % SHARED.length}</v></c>`,
    `<c r="C${r}" s="1"><v>${40000 + (r % 900)}</v></c>`,
    `<c r="D${r}" s="3"><v>0.${r % 10}5</v></c>`,
    `<c r="E${r}" s="2"><v>${numbers[r % numbers.length]}</v></c>`,
    r % 3 === 0 ? `<c r="F${r}" t="inlineStr"><is><t>in &amp; ${r}</t></is></c>` : '',
    r % 5 === 0 ? `<c r="G${r}" t="b"><v>${r % 2}</v></c>` : '',
    r % 7 === 0 ? `<c r="H${r}" t="e"><v>#N/A</v></c>` : '',
    `<c r="I${r}" t="str"><f>A${r}&amp;"x"</f><v>${r}x</v></c>`,
    r % 11 === 0 ? `<c r="J${r}" s="2"/>` : '',
  ];
  return `<row r="${r}"${rowAttrs}>${cells.join('')}</row>`;
}

/** A workbook of one sheet holding `rows` (several MB: several batches). */
async function workbook(name: string, rows: string): Promise<string> {
  const file = path.join(tmp.dir, `${name}.xlsx`);
  const body = `<sheetData>${rows}</sheetData><mergeCells count="1"><mergeCell ref="K1:L2"/></mergeCells>`;
  await writeFile(
    file,
    zipBytes(packageParts({ sheets: [{ name: 'S', body }], sharedStrings: SHARED, styles: STYLES })),
  );
  return file;
}

function range(from: number, to: number, row: (r: number) => string): string {
  const out: string[] = [];
  for (let r = from; r <= to; r++) out.push(row(r));
  return out.join('');
}

/** The sheet read in one pass, on one thread, on two, and on two into a document sink. */
async function readAllWays(file: string) {
  const onePass = await engine.extractWorkbook(file, { fastRows: false, batches: false });
  const oneThread = await engine.extractWorkbook(file, { batches: { workerMinBytes: 1, threads: 1 } });
  const twoCores = await engine.extractWorkbook(file, { batches: { workerMinBytes: 1, threads: 2 } });
  const sink = new ByteSink();
  const document = await engine.extractWorkbook(file, {
    batches: { workerMinBytes: 1, threads: 2 },
    document: sink,
  });
  return {
    expected: onePass.serialize('json'),
    oneThread: oneThread.serialize('json'),
    twoCores: twoCores.serialize('json'),
    document: Buffer.concat(sink.views(0, sink.offset)).toString('utf8'),
    parsedWith: [twoCores.sheets[0]!.parsedWith, document.sheets[0]!.parsedWith],
  };
}

beforeAll(async () => {
  engine = (await import(path.join(dist, 'extract-workbook.js'))) as Engine;
  ({ ByteSink } = (await import(path.join(dist, 'byte-sink.js'))) as { ByteSink: new () => Sink });
  tmp = await tempDir('exstruct-two-cores-');
});
afterAll(() => tmp.remove());

it('reads a big sheet on two cores into the same JSON as one pass', async () => {
  const rows = range(1, 7000, (r) =>
    richRow(r, r % 13 === 0 ? ' ht="30" customHeight="1"' : r % 17 === 0 ? ' hidden="1"' : ''),
  );
  const file = await workbook('rich', rows + '<row r="7001"/><row r="7002" ht="9"></row>');
  const got = await readAllWays(file);
  const fast = { fast: true, batches: true, workers: 1 };
  expect(got.parsedWith).toEqual([fast, fast]);
  expect(got.twoCores).toBe(got.expected);
  expect(got.document).toBe(got.expected);
  expect(got.oneThread).toBe(got.expected);
  const data = JSON.parse(got.expected);
  expect(data.sheets.S.rows).toHaveLength(7000);
  expect(data.sheets.S.rows[6999].c['1']).toBe('north');
}, 60_000);

it('reads on one thread the rows batches cannot number or join', async () => {
  // A row without `r` is numbered by the rows before it; rows out of order are put in order; a row
  // number met again in the next row is one object in one pass.
  const cases = {
    unnumbered: range(1, 7000, (r) => (r === 5000 ? richRow(r).replace(` r="${r}"`, '') : richRow(r))),
    unordered: range(2, 7000, (r) => richRow(r)) + richRow(1),
    repeated: range(1, 7000, (r) => richRow(r).replace(`<row r="${r}"`, '<row r="5"')),
  };
  for (const [name, rows] of Object.entries(cases)) {
    const got = await readAllWays(await workbook(name, rows));
    expect(got.twoCores, name).toBe(got.expected);
    expect(got.document, name).toBe(got.expected);
    expect(got.oneThread, name).toBe(got.expected);
    if (name !== 'unordered') expect(got.parsedWith[0]!.batches, name).toBe(false);
  }
}, 120_000);

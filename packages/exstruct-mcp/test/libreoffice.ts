// LibreOffice as an independent renderer and reader (tests only): `soffice --convert-to`, once per run
// for all files, with results cached under the OS temp folder by the file's hash. CI installs it and sets
// EXSTRUCT_REQUIRE_LIBREOFFICE=1, which turns its absence into a failure instead of a skip.
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { copyFile, mkdir, mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const CACHE = path.join(os.tmpdir(), 'exstruct-libreoffice-cache');

/** Whether soffice and pdftoppm can be used; throws when CI requires them and one is missing. */
export async function libreOfficeAvailable(): Promise<boolean> {
  // On PATH (pdftoppm prints its version and exits 1, so running it proves nothing).
  const found = async (cmd: string) =>
    (process.env.PATH ?? '')
      .split(path.delimiter)
      .some((dir) => dir !== '' && existsSync(path.join(dir, cmd)));
  const ok = (await found('soffice')) && (await found('pdftoppm'));
  if (!ok && process.env.EXSTRUCT_REQUIRE_LIBREOFFICE === '1')
    throw new Error(
      'LibreOffice and poppler are required (EXSTRUCT_REQUIRE_LIBREOFFICE=1): apt-get install -y libreoffice-calc-nogui poppler-utils',
    );
  return ok;
}

async function hashOf(file: string): Promise<string> {
  return createHash('sha256')
    .update(await readFile(file))
    .digest('hex')
    .slice(0, 24);
}

/**
 * Converts workbooks with one soffice run (those not converted before), then returns, per input,
 * the cached result (`pdf` → the first page rendered to an 8-bit grey PGM at `dpi` by pdftoppm; other
 * formats → the converted file).
 */
export async function convertWithLibreOffice(
  files: string[],
  format: 'pdf' | 'xlsx',
  dpi = 96,
): Promise<Map<string, string>> {
  await mkdir(CACHE, { recursive: true });
  const result = new Map<string, string>();
  const missing: { file: string; hash: string }[] = [];
  for (const file of files) {
    const hash = await hashOf(file);
    const cached = path.join(CACHE, `${hash}.${format === 'pdf' ? `${dpi}.pgm` : 'xlsx'}`);
    if (existsSync(cached)) result.set(file, cached);
    else missing.push({ file, hash });
  }
  if (missing.length === 0) return result;
  const work = await mkdtemp(path.join(os.tmpdir(), 'exstruct-lo-'));
  try {
    const inputs: string[] = [];
    for (const { file, hash } of missing) {
      const input = path.join(work, `${hash}${path.extname(file)}`);
      await copyFile(file, input);
      inputs.push(input);
    }
    const out = path.join(work, 'out');
    await run(
      'soffice',
      [
        `-env:UserInstallation=file://${path.join(work, 'profile')}`,
        '--headless',
        '--convert-to',
        format,
        '--outdir',
        out,
        ...inputs,
      ],
      { timeout: 120_000 },
    );
    for (const { file, hash } of missing) {
      const converted = path.join(out, `${hash}.${format}`);
      if (!existsSync(converted))
        throw new Error(`LibreOffice did not convert ${file} (${(await readdir(out)).join(', ')})`);
      const cached = path.join(CACHE, `${hash}.${format === 'pdf' ? `${dpi}.pgm` : 'xlsx'}`);
      if (format === 'pdf') {
        const prefix = path.join(work, hash);
        await run('pdftoppm', ['-r', String(dpi), '-gray', '-f', '1', '-l', '1', converted, prefix]);
        const page = (await readdir(work)).find((name) => name.startsWith(hash) && name.endsWith('.pgm'));
        if (!page) throw new Error(`pdftoppm wrote no page for ${file}`);
        await copyFile(path.join(work, page), cached);
      } else await copyFile(converted, cached);
      result.set(file, cached);
    }
  } finally {
    await rm(work, { recursive: true, force: true });
  }
  return result;
}

export interface GreyImage {
  width: number;
  height: number;
  /** One byte per pixel, 0 black … 255 white. */
  data: Uint8Array;
}

/** Reads a binary PGM (P5, maxval 255). */
export async function readPgm(file: string): Promise<GreyImage> {
  const bytes = await readFile(file);
  const header: string[] = [];
  let at = 0;
  while (header.length < 4) {
    while (/\s/.test(String.fromCharCode(bytes[at]!))) at++;
    if (bytes[at] === 0x23) {
      while (bytes[at] !== 0x0a) at++;
      continue;
    }
    let token = '';
    while (!/\s/.test(String.fromCharCode(bytes[at]!))) token += String.fromCharCode(bytes[at++]!);
    header.push(token);
  }
  at++;
  const [magic, width, height] = header;
  if (magic !== 'P5') throw new Error(`not a binary PGM: ${magic}`);
  return { width: Number(width), height: Number(height), data: bytes.subarray(at) };
}

// Workbooks encrypted with Excel's default password (issue 16): Excel and LibreOffice open them without
// asking, and so do we. The fixtures were encrypted by officecrypto-tool (an independent implementation
// of MS-OFFCRYPTO; LibreOffice opens its VelvetSweatshop files without a password) from
// producers/libreoffice.xlsx, so every decrypted workbook must extract exactly like that plain file. A
// further Agile file is encrypted here from the spec with other parameters (SHA-256, AES-128, a short
// spin count), and files with another password, an unknown encryption or a damaged container get an
// ENCRYPTED_WORKBOOK error that says which.
import { createCipheriv, createHash, randomBytes } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import * as CFB from 'cfb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { extractWorkbook } from '../src/extract/extract-workbook.js';
import { connect, FIXTURES, tempDir, type Session, type TempDir } from './extract-helpers.js';

const PRODUCERS = path.join(FIXTURES, 'producers');
const PLAIN = path.join(PRODUCERS, 'libreoffice.xlsx');

let tmp: TempDir;
let plainRows: unknown;
beforeAll(async () => {
  tmp = await tempDir('exstruct-encrypted-');
  plainRows = (await extractWorkbook(PLAIN)).workbook.sheets;
});
afterAll(() => tmp.remove());

/** An OLE file holding EncryptionInfo and EncryptedPackage, as Excel writes it. */
function oleFile(info: Buffer, encryptedPackage: Buffer): Buffer {
  const container = CFB.utils.cfb_new();
  CFB.utils.cfb_add(container, '/EncryptionInfo', info);
  CFB.utils.cfb_add(container, '/EncryptedPackage', encryptedPackage);
  return Buffer.from(CFB.write(container, { type: 'buffer' }) as Uint8Array);
}

/**
 * Agile encryption (MS-OFFCRYPTO 2.3.4.10–2.3.4.15) written from the spec with SHA-256, AES-128 and
 * `spins` rounds: the package key wrapped by the password key, the package in 4096-byte segments.
 */
function encryptAgile(plain: Buffer, password: string, spins = 1000): Buffer {
  const hash = (...parts: Buffer[]) => parts.reduce((h, p) => h.update(p), createHash('sha256')).digest();
  const u32 = (n: number) => {
    const b = Buffer.alloc(4);
    b.writeUInt32LE(n, 0);
    return b;
  };
  const aes = (key: Buffer, iv: Buffer, data: Buffer) => {
    const cipher = createCipheriv('aes-128-cbc', key, iv);
    cipher.setAutoPadding(false);
    const padded = Buffer.concat([data, Buffer.alloc((16 - (data.length % 16)) % 16)]);
    return Buffer.concat([cipher.update(padded), cipher.final()]);
  };
  const dataSalt = randomBytes(16);
  const keySalt = randomBytes(16);
  const secret = randomBytes(16);
  let spun = hash(keySalt, Buffer.from(password, 'utf16le'));
  for (let i = 0; i < spins; i++) spun = hash(u32(i), spun);
  const keyFor = (block: string) => hash(spun, Buffer.from(block, 'hex')).subarray(0, 16);
  const verifier = randomBytes(16);
  const b64 = (b: Buffer) => b.toString('base64');
  const xml =
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\r\n' +
    '<encryption xmlns="http://schemas.microsoft.com/office/2006/encryption" xmlns:p="http://schemas.microsoft.com/office/2006/keyEncryptor/password">' +
    `<keyData saltSize="16" blockSize="16" keyBits="128" hashSize="32" cipherAlgorithm="AES" cipherChaining="ChainingModeCBC" hashAlgorithm="SHA256" saltValue="${b64(dataSalt)}"/>` +
    '<keyEncryptors><keyEncryptor uri="http://schemas.microsoft.com/office/2006/keyEncryptor/password">' +
    `<p:encryptedKey spinCount="${spins}" saltSize="16" blockSize="16" keyBits="128" hashSize="32" cipherAlgorithm="AES" cipherChaining="ChainingModeCBC" hashAlgorithm="SHA256" saltValue="${b64(keySalt)}"` +
    ` encryptedVerifierHashInput="${b64(aes(keyFor('fea7d2763b4b9e79'), keySalt, verifier))}"` +
    ` encryptedVerifierHashValue="${b64(aes(keyFor('d7aa0f6d3061344e'), keySalt, hash(verifier)))}"` +
    ` encryptedKeyValue="${b64(aes(keyFor('146e0be7abacd0d6'), keySalt, secret))}"/>` +
    '</keyEncryptor></keyEncryptors></encryption>';
  const info = Buffer.concat([Buffer.from([4, 0, 4, 0, 0x40, 0, 0, 0]), Buffer.from(xml, 'utf8')]);
  const segments: Buffer[] = [];
  for (let i = 0; i * 4096 < plain.length; i++) {
    const iv = hash(dataSalt, u32(i)).subarray(0, 16);
    segments.push(aes(secret, iv, plain.subarray(i * 4096, (i + 1) * 4096)));
  }
  const size = Buffer.alloc(8);
  size.writeBigUInt64LE(BigInt(plain.length), 0);
  return oleFile(info, Buffer.concat([size, ...segments]));
}

describe('a workbook encrypted with the default password VelvetSweatshop', () => {
  it.each([
    ['Agile (AES-256, SHA-512), by officecrypto-tool', 'oc-agile-velvet.xlsx'],
    ['Standard (AES-128, SHA-1), by officecrypto-tool', 'oc-standard-velvet.xlsx'],
  ])('is decrypted and read like the plain workbook: %s', async (_label, name) => {
    const extraction = await extractWorkbook(path.join(PRODUCERS, name));
    expect(extraction.workbook.sheets).toEqual(plainRows);
    expect(extraction.warnings.join(' ')).toContain('VelvetSweatshop');
  });

  it('is decrypted when written from the spec with other parameters (SHA-256, AES-128, two segments)', async () => {
    const plain = await readFile(PLAIN);
    expect(plain.length).toBeGreaterThan(4096); // more than one segment, the last one partial
    const file = await tmp.file('spec-agile.xlsx', encryptAgile(plain, 'VelvetSweatshop'));
    expect((await extractWorkbook(file)).workbook.sheets).toEqual(plainRows);
  });
});

describe('an encrypted workbook that cannot be read', () => {
  it.each([
    ['Standard, by officecrypto-tool', path.join(PRODUCERS, 'oc-standard-secret.xlsx')],
    ['Agile, written from the spec', 'spec'],
  ])(
    'with another password is ENCRYPTED_WORKBOOK naming the default it tried: %s',
    async (_label, source) => {
      const file =
        source === 'spec'
          ? await tmp.file('secret.xlsx', encryptAgile(await readFile(PLAIN), 'secret'))
          : source;
      await expect(extractWorkbook(file)).rejects.toMatchObject({
        code: 'ENCRYPTED_WORKBOOK',
        message: `"${path.basename(file)}" is encrypted with a password to open (not Excel's default "VelvetSweatshop", which is read without asking).`,
        details: { reason: 'password' },
      });
    },
  );

  it('with an encryption other than Standard or Agile says so', async () => {
    const file = await tmp.file(
      'extensible.xlsx',
      oleFile(Buffer.from([3, 0, 3, 0, 0, 0, 0, 0, 0, 0, 0, 0]), Buffer.alloc(16)),
    );
    await expect(extractWorkbook(file)).rejects.toMatchObject({
      code: 'ENCRYPTED_WORKBOOK',
      message: expect.stringContaining('Encryption version 3.3 is not ECMA-376 Standard or Agile'),
      details: { reason: 'unsupported' },
    });
  });

  it('with a truncated encrypted package is ENCRYPTED_WORKBOOK, not a crash', async () => {
    const good = await readFile(path.join(PRODUCERS, 'oc-standard-velvet.xlsx'));
    const container = CFB.read(good, { type: 'buffer' });
    const entry = CFB.find(container, '/EncryptedPackage')!;
    entry.content = Buffer.from(entry.content as Uint8Array).subarray(0, 100);
    const file = await tmp.file(
      'truncated.xlsx',
      Buffer.from(CFB.write(container, { type: 'buffer' }) as Uint8Array),
    );
    await expect(extractWorkbook(file)).rejects.toMatchObject({
      code: 'ENCRYPTED_WORKBOOK',
      details: { reason: 'damaged' },
    });
  });
});

describe('through the MCP tools', () => {
  let session: Session;
  beforeAll(async () => {
    await writeFile(
      path.join(tmp.dir, 'protected.xlsx'),
      await readFile(path.join(PRODUCERS, 'oc-agile-velvet.xlsx')),
    );
    session = await connect(tmp.dir);
  });
  afterAll(() => session.close());

  it('validate_input calls it readable and says it was decrypted; extract writes its output', async () => {
    const validated = await session.call<{ is_readable: boolean; warnings: string[] }>(
      'exstruct_validate_input',
      {
        xlsx_path: 'protected.xlsx',
      },
    );
    expect(validated.isError, validated.text).toBe(false);
    expect(validated.structured.is_readable).toBe(true);
    expect(validated.structured.warnings.join(' ')).toContain('VelvetSweatshop');
    const extracted = await session.call<{ out_path: string; warnings: string[] }>('exstruct_extract', {
      xlsx_path: 'protected.xlsx',
    });
    expect(extracted.isError, extracted.text).toBe(false);
    const written = JSON.parse(await readFile(extracted.structured.out_path, 'utf8')) as { sheets: unknown };
    expect(written.sheets).toEqual(JSON.parse(JSON.stringify(plainRows)));
  });
});

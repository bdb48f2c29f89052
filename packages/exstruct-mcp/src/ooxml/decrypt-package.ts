// Workbooks "encrypted" with Excel's default password. Excel writes a workbook whose structure or sheets
// are protected without a password to open as an encrypted OLE file with the password `VelvetSweatshop`,
// and Excel and LibreOffice open such files without asking. This reads them the same way: the OLE
// container (the `cfb` package) holds `EncryptionInfo` and `EncryptedPackage`; ECMA-376 Standard
// (AES-ECB, SHA-1 key) and Agile (AES-CBC in 4096-byte segments, any SHA) encryption are decrypted
// with Node's crypto (MS-OFFCRYPTO 2.3.4.5–2.3.4.15). Any other password is refused.
import { createDecipheriv, createHash } from 'node:crypto';
import { setImmediate as yieldToLoop } from 'node:timers/promises';
import { find, read } from 'cfb';
import { parseXmlTree, attr, type XmlElement } from './xml.js';

/** Excel's default password for workbooks that are protected without a password to open. */
export const DEFAULT_PASSWORD = 'VelvetSweatshop';

/** Why a package could not be decrypted (the caller turns it into ENCRYPTED_WORKBOOK). */
export class DecryptError extends Error {
  constructor(
    message: string,
    /** `password`: another password than Excel's default; `unsupported`: an encryption not read here. */
    readonly reason: 'password' | 'unsupported' | 'damaged',
  ) {
    super(message);
    this.name = 'DecryptError';
  }
}

/** How many hash rounds run between two yields to the event loop (a round is a few microseconds). */
const SPINS_PER_SLICE = 5_000;
/** How many 4096-byte segments are decrypted between two yields. */
const SEGMENTS_PER_SLICE = 2_048;

interface StreamEntry {
  content: Uint8Array | number[];
}

function bytesOf(entry: StreamEntry): Buffer {
  const { content } = entry;
  return Buffer.isBuffer(content) ? content : Buffer.from(content as Uint8Array);
}

/**
 * The zip package inside an encrypted OLE file, decrypted with Excel's default password. Throws
 * DecryptError when the file holds no such package, uses another password, or an encryption that is not
 * ECMA-376 Standard or Agile with AES.
 */
export async function decryptWithDefaultPassword(ole: Buffer): Promise<Buffer> {
  let container;
  try {
    container = read(ole, { type: 'buffer' });
  } catch (error) {
    throw new DecryptError(`The OLE container is damaged (${(error as Error).message}).`, 'damaged');
  }
  const info = find(container, '/EncryptionInfo');
  const encrypted = find(container, '/EncryptedPackage');
  if (!info || !encrypted) throw new DecryptError('The OLE file holds no encrypted package.', 'damaged');
  const infoBytes = bytesOf(info);
  const packageBytes = bytesOf(encrypted);
  if (infoBytes.length < 8 || packageBytes.length < 8)
    throw new DecryptError('The encryption information is truncated.', 'damaged');
  const major = infoBytes.readUInt16LE(0);
  const minor = infoBytes.readUInt16LE(2);
  if (major === 4 && minor === 4) return decryptAgile(infoBytes, packageBytes);
  if ((major === 2 || major === 3 || major === 4) && minor === 2)
    return decryptStandard(infoBytes, packageBytes);
  throw new DecryptError(
    `Encryption version ${major}.${minor} is not ECMA-376 Standard or Agile.`,
    'unsupported',
  );
}

function passwordBytes(): Buffer {
  return Buffer.from(DEFAULT_PASSWORD, 'utf16le');
}

/** The declared size of the plain package (first 8 bytes of EncryptedPackage) and the cipher text. */
function packageParts(packageBytes: Buffer): { size: number; data: Buffer } {
  const size = Number(packageBytes.readBigUInt64LE(0));
  const data = packageBytes.subarray(8);
  if (size > data.length) throw new DecryptError('The encrypted package is truncated.', 'damaged');
  return { size, data };
}

/** H(salt + password), then `spins` rounds of H(round as uint32 LE + hash), yielding now and then. */
async function spunHash(algorithm: string, salt: Buffer, spins: number): Promise<Buffer> {
  let hash = createHash(algorithm).update(salt).update(passwordBytes()).digest();
  const round = Buffer.alloc(4);
  for (let i = 0; i < spins; i++) {
    round.writeUInt32LE(i, 0);
    hash = createHash(algorithm).update(round).update(hash).digest();
    if (i % SPINS_PER_SLICE === SPINS_PER_SLICE - 1) await yieldToLoop();
  }
  return hash;
}

// ---- ECMA-376 Standard encryption (MS-OFFCRYPTO 2.3.4.5, 2.3.4.7, 2.3.4.9) ----

const AES_IDS: Record<number, number> = { 0x660e: 128, 0x660f: 192, 0x6610: 256 };
const SHA1_ID = 0x8004;

async function decryptStandard(info: Buffer, packageBytes: Buffer): Promise<Buffer> {
  try {
    const headerSize = info.readUInt32LE(8);
    const header = info.subarray(12, 12 + headerSize);
    const algId = header.readUInt32LE(8);
    const algIdHash = header.readUInt32LE(12);
    const keyBits = header.readUInt32LE(16);
    if (AES_IDS[algId] === undefined || (algIdHash !== SHA1_ID && algIdHash !== 0)) {
      throw new DecryptError(
        `Standard encryption with algorithm 0x${algId.toString(16)} is not AES with SHA-1.`,
        'unsupported',
      );
    }
    const verifier = info.subarray(12 + headerSize);
    const saltSize = verifier.readUInt32LE(0);
    const salt = verifier.subarray(4, 4 + saltSize);
    const encryptedVerifier = verifier.subarray(4 + saltSize, 4 + saltSize + 16);
    const encryptedVerifierHash = verifier.subarray(4 + saltSize + 20, 4 + saltSize + 20 + 32);
    const key = standardKey(await spunHash('sha1', salt, 50_000), keyBits || AES_IDS[algId]);
    const cipher = `aes-${key.length * 8}-ecb`;
    const plainVerifier = aes(cipher, key, undefined, encryptedVerifier);
    const plainHash = aes(cipher, key, undefined, encryptedVerifierHash).subarray(0, 20);
    if (!createHash('sha1').update(plainVerifier).digest().equals(plainHash)) throw wrongPassword();
    const { size, data } = packageParts(packageBytes);
    const usable = data.subarray(0, data.length - (data.length % 16));
    return (await aesInSlices(cipher, key, usable)).subarray(0, size);
  } catch (error) {
    throw asDecryptError(error);
  }
}

/** The key from the final hash: SHA-1 of the hash XOR 0x36 pads and of it XOR 0x5C pads (2.3.4.7). */
function standardKey(spun: Buffer, keyBits: number): Buffer {
  const final = createHash('sha1').update(spun).update(Buffer.alloc(4)).digest();
  const derive = (fill: number) => {
    const buffer = Buffer.alloc(64, fill);
    for (let i = 0; i < final.length; i++) buffer[i]! ^= final[i]!;
    return createHash('sha1').update(buffer).digest();
  };
  return Buffer.concat([derive(0x36), derive(0x5c)]).subarray(0, keyBits / 8);
}

// ---- ECMA-376 Agile encryption (MS-OFFCRYPTO 2.3.4.10–2.3.4.15) ----

const BLOCK_VERIFIER_INPUT = Buffer.from('fea7d2763b4b9e79', 'hex');
const BLOCK_VERIFIER_VALUE = Buffer.from('d7aa0f6d3061344e', 'hex');
const BLOCK_KEY_VALUE = Buffer.from('146e0be7abacd0d6', 'hex');
const SEGMENT_BYTES = 4096;
const PASSWORD_ENCRYPTOR = 'http://schemas.microsoft.com/office/2006/keyEncryptor/password';

const HASHES: Record<string, string> = {
  SHA1: 'sha1',
  'SHA-1': 'sha1',
  SHA256: 'sha256',
  'SHA-256': 'sha256',
  SHA384: 'sha384',
  'SHA-384': 'sha384',
  SHA512: 'sha512',
  'SHA-512': 'sha512',
};

interface AgileParams {
  hash: string;
  hashSize: number;
  keyBytes: number;
  blockSize: number;
  salt: Buffer;
}

function agileParams(element: XmlElement): AgileParams {
  const cipher = attr(element.attrs, 'cipherAlgorithm');
  const chaining = attr(element.attrs, 'cipherChaining');
  const hash = HASHES[attr(element.attrs, 'hashAlgorithm') ?? ''];
  if (cipher !== 'AES' || chaining !== 'ChainingModeCBC' || !hash) {
    throw new DecryptError(
      `Agile encryption with ${cipher ?? '?'}/${chaining ?? '?'}/${attr(element.attrs, 'hashAlgorithm') ?? '?'} is not read (AES-CBC with SHA is).`,
      'unsupported',
    );
  }
  const keyBits = Number(attr(element.attrs, 'keyBits'));
  if (![128, 192, 256].includes(keyBits))
    throw new DecryptError(`AES with ${keyBits}-bit keys?`, 'unsupported');
  return {
    hash,
    hashSize: Number(attr(element.attrs, 'hashSize')),
    keyBytes: keyBits / 8,
    blockSize: Number(attr(element.attrs, 'blockSize')),
    salt: Buffer.from(attr(element.attrs, 'saltValue') ?? '', 'base64'),
  };
}

/** A hash cut or padded (with 0x36) to `length` bytes (2.3.4.11, 2.3.4.12). */
function fitted(bytes: Buffer, length: number): Buffer {
  if (bytes.length >= length) return bytes.subarray(0, length);
  return Buffer.concat([bytes, Buffer.alloc(length - bytes.length, 0x36)]);
}

async function decryptAgile(info: Buffer, packageBytes: Buffer): Promise<Buffer> {
  try {
    const descriptor = parseXmlTree(info.subarray(8).toString('utf8'), 'EncryptionInfo');
    const keyData = descriptor.children.find((c) => c.name === 'keyData');
    const encryptor = descriptor.children
      .find((c) => c.name === 'keyEncryptors')
      ?.children.find((c) => c.name === 'keyEncryptor' && c.attrs.uri === PASSWORD_ENCRYPTOR)
      ?.children.find((c) => c.name === 'encryptedKey');
    if (!keyData || !encryptor) {
      throw new DecryptError('The workbook is encrypted for a certificate, not a password.', 'unsupported');
    }
    const data = agileParams(keyData);
    const user = agileParams(encryptor);
    const spins = Number(attr(encryptor.attrs, 'spinCount'));
    if (!Number.isInteger(spins) || spins < 0 || spins > 10_000_000)
      throw new DecryptError(`A spin count of ${spins} is out of range.`, 'damaged');
    const spun = await spunHash(user.hash, user.salt, spins);
    const keyFor = (block: Buffer) =>
      fitted(createHash(user.hash).update(spun).update(block).digest(), user.keyBytes);
    const cipher = `aes-${user.keyBytes * 8}-cbc`;
    const iv = fitted(user.salt, user.blockSize);
    const field = (name: string) => Buffer.from(attr(encryptor.attrs, name) ?? '', 'base64');
    const verifierInput = aes(cipher, keyFor(BLOCK_VERIFIER_INPUT), iv, field('encryptedVerifierHashInput'));
    const verifierHash = aes(cipher, keyFor(BLOCK_VERIFIER_VALUE), iv, field('encryptedVerifierHashValue'));
    const expected = createHash(user.hash).update(verifierInput.subarray(0, user.salt.length)).digest();
    if (!expected.equals(verifierHash.subarray(0, user.hashSize))) throw wrongPassword();
    const secret = aes(cipher, keyFor(BLOCK_KEY_VALUE), iv, field('encryptedKeyValue')).subarray(
      0,
      data.keyBytes,
    );
    return await decryptSegments(data, secret, packageBytes);
  } catch (error) {
    throw asDecryptError(error);
  }
}

/** The package in 4096-byte segments, each with IV = H(keyData salt + segment index) (2.3.4.15). */
async function decryptSegments(data: AgileParams, secret: Buffer, packageBytes: Buffer): Promise<Buffer> {
  const { size, data: cipherText } = packageParts(packageBytes);
  const cipher = `aes-${data.keyBytes * 8}-cbc`;
  const out = Buffer.allocUnsafe(cipherText.length);
  const index = Buffer.alloc(4);
  let written = 0;
  for (let segment = 0, offset = 0; offset < cipherText.length; segment++, offset += SEGMENT_BYTES) {
    index.writeUInt32LE(segment, 0);
    const iv = fitted(createHash(data.hash).update(data.salt).update(index).digest(), data.blockSize);
    const piece = cipherText.subarray(offset, Math.min(offset + SEGMENT_BYTES, cipherText.length));
    const usable = piece.subarray(0, piece.length - (piece.length % 16));
    written += aes(cipher, secret, iv, usable).copy(out, written);
    if (segment % SEGMENTS_PER_SLICE === SEGMENTS_PER_SLICE - 1) await yieldToLoop();
    if (written >= size) break;
  }
  return out.subarray(0, size);
}

// ---- AES ----

function aes(cipher: string, key: Buffer, iv: Buffer | undefined, data: Buffer): Buffer {
  const decipher = createDecipheriv(cipher, key, iv ?? null);
  decipher.setAutoPadding(false);
  return Buffer.concat([decipher.update(data), decipher.final()]);
}

/** AES-ECB over a large buffer, a megabyte at a time with yields in between. */
async function aesInSlices(cipher: string, key: Buffer, data: Buffer): Promise<Buffer> {
  const decipher = createDecipheriv(cipher, key, null);
  decipher.setAutoPadding(false);
  const pieces: Buffer[] = [];
  const slice = 1024 * 1024;
  for (let offset = 0; offset < data.length; offset += slice) {
    pieces.push(decipher.update(data.subarray(offset, offset + slice)));
    await yieldToLoop();
  }
  pieces.push(decipher.final());
  return Buffer.concat(pieces);
}

function wrongPassword(): DecryptError {
  return new DecryptError('The workbook needs a password to open.', 'password');
}

function asDecryptError(error: unknown): DecryptError {
  if (error instanceof DecryptError) return error;
  return new DecryptError(`The encryption information is damaged (${(error as Error).message}).`, 'damaged');
}

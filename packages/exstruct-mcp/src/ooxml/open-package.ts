import type { FileHandle } from 'node:fs/promises';
import path from 'node:path';
import {
  ToolError,
  localFiles,
  readOpened,
  type FileAccess,
  type OpenedFile,
} from '@mcp-workbench/core/engine';
import { DEFAULT_PASSWORD, DecryptError, decryptWithDefaultPassword } from './decrypt-package.js';
import { ZipArchive, type ZipLimits } from './zip-archive.js';

/** Extensions read as SpreadsheetML packages (workbooks, macro workbooks and their templates). */
export const SUPPORTED_EXTENSIONS = ['.xlsx', '.xlsm', '.xltx', '.xltm'] as const;

const OLE_MAGIC = Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]);
const ZIP_MAGIC = Buffer.from('PK');
/** Excel stores a password-protected .xlsx as an OLE compound file holding an `EncryptedPackage` stream. */
const ENCRYPTED_PACKAGE_UTF16 = Buffer.from('EncryptedPackage', 'utf16le');

const HINT_SAVE_AS_XLSX = 'Open the file in Excel (or LibreOffice) and save it as .xlsx, then retry.';

function unsupported(message: string, format: string, hint: string): ToolError {
  return new ToolError('UNSUPPORTED_FORMAT', message, { hint, details: { format } });
}

const HINT_REMOVE_PASSWORD =
  'Remove the password in Excel (File → Info → Protect Workbook → Encrypt with Password) and save a copy.';

function encrypted(file: string, why?: DecryptError): ToolError {
  const name = path.basename(file);
  if (why?.reason === 'unsupported' || why?.reason === 'damaged') {
    return new ToolError(
      'ENCRYPTED_WORKBOOK',
      `"${name}" is encrypted and could not be decrypted: ${why.message}`,
      { hint: HINT_REMOVE_PASSWORD, details: { reason: why.reason } },
    );
  }
  return new ToolError(
    'ENCRYPTED_WORKBOOK',
    `"${name}" is encrypted with a password to open (not Excel's default "${DEFAULT_PASSWORD}", which is read without asking).`,
    { hint: HINT_REMOVE_PASSWORD, details: { reason: 'password' } },
  );
}

/** Largest encrypted workbook decrypted (it is read whole into memory, and decrypted there). */
export const MAX_ENCRYPTED_BYTES = 512 * 1024 * 1024;

/** Rejects formats this reader does not handle, before any parsing, with a message that names the fix. */
export function checkExtension(file: string): void {
  const ext = path.extname(file).toLowerCase();
  if ((SUPPORTED_EXTENSIONS as readonly string[]).includes(ext)) return;
  switch (ext) {
    case '.xls':
      throw unsupported(
        `"${path.basename(file)}" is a legacy binary Excel 97-2003 workbook (.xls), which needs Excel itself to read.`,
        'xls',
        HINT_SAVE_AS_XLSX,
      );
    case '.xlsb':
      throw unsupported(
        `"${path.basename(file)}" is an Excel binary workbook (.xlsb); only the XML formats .xlsx/.xlsm are read.`,
        'xlsb',
        HINT_SAVE_AS_XLSX,
      );
    case '.csv':
    case '.tsv':
      throw unsupported(
        `"${path.basename(file)}" is a plain-text ${ext.slice(1).toUpperCase()} file, not a workbook.`,
        ext.slice(1),
        'Read it as text with a file tool, or open it in Excel and save it as .xlsx.',
      );
    default:
      throw unsupported(
        `"${path.basename(file)}" has the extension "${ext || '(none)'}"; supported: ${SUPPORTED_EXTENSIONS.join(', ')}.`,
        ext.slice(1) || 'unknown',
        'Give the path of an .xlsx or .xlsm workbook.',
      );
  }
}

async function readHead(handle: FileHandle, bytes: number): Promise<Buffer> {
  const buffer = Buffer.alloc(bytes);
  const { bytesRead } = await handle.read(buffer, 0, bytes, 0);
  return buffer.subarray(0, bytesRead);
}

async function isEncryptedOle(handle: FileHandle): Promise<boolean> {
  // The directory of a small encrypted package sits near the start; a bounded read is enough to find it.
  const head = await readHead(handle, 1024 * 1024);
  return head.includes(ENCRYPTED_PACKAGE_UTF16);
}

/**
 * Opens a workbook package after checking what the file really is: an encrypted workbook (OLE file with
 * EncryptedPackage) is decrypted when it uses Excel's default password and refused otherwise; a legacy
 * .xls (OLE), something that is not a zip at all, or a damaged zip each get their own error code.
 * Reusable by every reader and writer of workbooks.
 */
export async function openWorkbookPackage(
  file: string,
  limits: Partial<ZipLimits> = {},
  files: FileAccess = localFiles,
  options: { reuseMemory?: boolean } = {},
): Promise<ZipArchive> {
  // Opened once, as checked (a server passes its PathPolicy); the archive owns the handle afterwards.
  return openWorkbookHandle(file, await files.openFile(file), limits, options);
}

/**
 * The same as openWorkbookPackage on a file already opened (the archive owns its handle afterwards).
 * `reuseMemory`: see ZipArchive.fromHandle.
 */
export async function openWorkbookHandle(
  file: string,
  opened: OpenedFile,
  limits: Partial<ZipLimits> = {},
  options: { reuseMemory?: boolean } = {},
): Promise<ZipArchive> {
  const { handle } = opened;
  let kind: 'zip' | 'encrypted';
  try {
    kind = await checkKind(file, handle);
  } catch (error) {
    await handle.close();
    throw error;
  }
  if (kind === 'encrypted') return openEncrypted(file, opened, limits);
  let zip: ZipArchive;
  try {
    zip = await ZipArchive.fromHandle(handle, limits, options);
  } catch (error) {
    throw damagedZip(file, error);
  }
  if (zip.list().some((entry) => entry.encrypted)) {
    zip.close();
    throw encrypted(file);
  }
  return zip;
}

function damagedZip(file: string, error: unknown): Error {
  if (error instanceof ToolError) return error;
  return new ToolError(
    'CORRUPT_WORKBOOK',
    `"${path.basename(file)}" is a damaged or truncated zip package: ${(error as Error).message}`,
    { hint: 'Re-download or re-save the workbook; the end of the file may be missing.' },
  );
}

/** An encrypted workbook: decrypted in memory when Excel's default password opens it. */
async function openEncrypted(
  file: string,
  opened: OpenedFile,
  limits: Partial<ZipLimits>,
): Promise<ZipArchive> {
  let plain: Buffer;
  try {
    const ole = await readOpened(opened, {
      maxBytes: MAX_ENCRYPTED_BYTES,
      shownAs: `"${path.basename(file)}"`,
    });
    plain = await decryptWithDefaultPassword(ole);
  } catch (error) {
    if (error instanceof DecryptError) throw encrypted(file, error);
    throw error;
  } finally {
    await opened.handle.close();
  }
  if (plain.length < 2 || !plain.subarray(0, 2).equals(ZIP_MAGIC))
    throw encrypted(file, new DecryptError('the decrypted package is not a zip.', 'damaged'));
  try {
    return await ZipArchive.fromBuffer(plain, limits, { decrypted: true });
  } catch (error) {
    throw damagedZip(file, error);
  }
}

/** What the file really is, from its first bytes: a zip, an encrypted workbook, or an error. */
async function checkKind(file: string, handle: FileHandle): Promise<'zip' | 'encrypted'> {
  const head = await readHead(handle, 8);
  if (head.length >= 8 && head.subarray(0, 8).equals(OLE_MAGIC)) {
    if (await isEncryptedOle(handle)) return 'encrypted';
    checkExtension(file);
    throw unsupported(
      `"${path.basename(file)}" is a legacy binary (OLE) Excel file despite its extension.`,
      'xls',
      HINT_SAVE_AS_XLSX,
    );
  }
  checkExtension(file);
  if (head.length < 2 || !head.subarray(0, 2).equals(ZIP_MAGIC)) {
    throw new ToolError(
      'NOT_A_ZIP',
      `"${path.basename(file)}" is not a zip package, so it is not an .xlsx/.xlsm workbook.`,
      {
        hint: 'Check that the path points to a real Excel workbook (an .xlsx file renamed from another format will not open).',
      },
    );
  }
  return 'zip';
}

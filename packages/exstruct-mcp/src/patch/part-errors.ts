import { constants } from 'node:buffer';
import { isToolError, ToolError } from '@mcp-workbench/core/engine';
import { RowFragmentError } from '../ooxml/row-fragment-parser.js';
import { XmlSyntaxError } from '../ooxml/sax.js';
import { XmlError, tokenizeXml } from '../ooxml/xml-tokenizer.js';
import { corrupt } from '../ooxml/xml.js';
import type { ZipArchive } from '../ooxml/zip-archive.js';

/** The longest string this JavaScript engine makes (V8: 2^29 - 24 characters on 64-bit). */
const MAX_TEXT = constants.MAX_STRING_LENGTH;

function tooLong(part: string, bytes?: number): ToolError {
  const size = bytes === undefined ? '' : ` (${Math.round(bytes / 2 ** 20)} MiB)`;
  return new ToolError(
    'LIMIT_EXCEEDED',
    `The workbook part "${part}"${size} holds more XML in one piece than one JavaScript string can (${Math.floor(MAX_TEXT / 2 ** 20)} MiB), so it cannot be edited.`,
    {
      hint: 'Excel never writes a part like this; open and re-save the workbook in Excel, or check where it came from.',
      details: { part },
    },
  );
}

/** Whether an error is the engine refusing a string longer than it can make. */
function isStringLimit(error: unknown): boolean {
  if (error instanceof RangeError) return error.message === 'Invalid string length';
  return (error as { code?: unknown } | undefined)?.code === 'ERR_STRING_TOO_LONG';
}

/**
 * What an error met while reading or rewriting the part `part` tells the user: a part that is not
 * well-formed XML (or nests deeper than the tokenizer's cap) is CORRUPT_WORKBOOK, a piece of it longer
 * than one string LIMIT_EXCEEDED, both naming the part; a coded error without a part gets it; anything
 * else is passed on as it was.
 */
export function partError(part: string, error: unknown): unknown {
  if (error instanceof XmlError || error instanceof XmlSyntaxError || error instanceof RowFragmentError) {
    return corrupt(part, error);
  }
  if (isStringLimit(error)) return tooLong(part);
  if (isToolError(error) && error.code === 'CORRUPT_WORKBOOK' && error.details?.part === undefined) {
    return new ToolError(error.code, `${error.message} (part "${part}")`, {
      ...(error.hint ? { hint: error.hint } : {}),
      details: { ...error.details, part },
    });
  }
  return error;
}

/** Runs work on one part; its errors name the part (see partError). */
export async function inPart<T>(part: string, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    throw partError(part, error);
  }
}

/**
 * A part the patch engine holds as text (workbook, relationships, content types, styles, tables, …),
 * checked once as it is read: longer than one string is LIMIT_EXCEEDED (decided from its declared size,
 * which inflation never exceeds), not well-formed XML or nested too deep is CORRUPT_WORKBOOK. Every
 * later parse of the text (or of a piece of it) then meets only what this check accepted.
 */
export async function readPartText(archive: ZipArchive, part: string): Promise<string> {
  const declared = archive.info(part)?.uncompressedSize ?? 0;
  if (declared > MAX_TEXT) throw tooLong(part, declared);
  return inPart(part, async () => {
    const text = await archive.readText(part);
    tokenizeXml(text, {});
    return text;
  });
}

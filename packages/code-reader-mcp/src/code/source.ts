import { ToolError, type FileAccess } from '@mcp-workbench/core/engine';
import { readCapped } from '../util/read-capped.js';
import { decodeText } from '../extract/read-lines.js';
import { detectLanguage, type LanguageId } from './languages.js';

/** Files above this are not analysed (parse time and memory grow with size). */
export const MAX_ANALYZE_BYTES = 5 * 1_048_576;

export interface SourceFile {
  text: string;
  bytes: number;
  language: LanguageId | undefined;
}

export async function readSource(
  files: FileAccess,
  realPath: string,
  shownPath: string,
): Promise<SourceFile> {
  const buffer = await readCapped(
    files,
    realPath,
    shownPath,
    MAX_ANALYZE_BYTES,
    (size) =>
      new ToolError(
        'LIMIT_EXCEEDED',
        `${shownPath} is ${size} bytes, above the analysis limit of ${MAX_ANALYZE_BYTES} bytes.`,
        {
          hint: 'Use search_content or extract_code_section on parts of this file instead.',
          details: { limit: 'max_file_size', value: size, max: MAX_ANALYZE_BYTES },
        },
      ),
  );
  let text: string;
  try {
    // Drops a UTF-8 BOM and decodes UTF-16 with a BOM, as extraction and ripgrep read files.
    text = decodeText(buffer, shownPath);
  } catch (error) {
    if (!(error instanceof ToolError) || error.code !== 'UNSUPPORTED_FORMAT') throw error;
    throw new ToolError('UNSUPPORTED_FORMAT', `${shownPath} looks like a binary file.`, {
      hint: 'Only text source files can be measured or parsed.',
    });
  }
  return { text, bytes: buffer.length, language: detectLanguage(realPath, text) };
}

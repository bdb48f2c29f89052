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
          // extract_code_section streams line ranges of files this big (audit t24: hints led in a circle).
          hint: 'Read it in parts: extract_code_section with start_line and end_line (a few hundred lines apart), after search_content finds the lines you need (e.g. a function name).',
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

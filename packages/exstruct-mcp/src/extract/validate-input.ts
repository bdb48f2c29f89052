import path from 'node:path';
import { toToolError, type FileAccess } from '@mcp-workbench/core/engine';
import { WorkbookReader } from '../ooxml/workbook-reader.js';

export interface InputProblem {
  code: string;
  message: string;
  hint?: string;
}

export interface ValidationResult {
  is_readable: boolean;
  /** `xlsx` / `xlsm` / … when readable. */
  format?: string;
  sheet_names?: string[];
  warnings: string[];
  errors: InputProblem[];
}

/**
 * Checks that a workbook can be extracted without extracting it: format, encryption, zip integrity and
 * every sheet's part. Problems are returned (not thrown) so an agent sees all of them in one answer.
 */
export async function validateInput(file: string, files?: FileAccess): Promise<ValidationResult> {
  const warnings: string[] = [];
  let reader: WorkbookReader;
  try {
    reader = await WorkbookReader.open(file, {}, files);
  } catch (error) {
    const problem = toToolError(error);
    return {
      is_readable: false,
      warnings,
      errors: [
        { code: problem.code, message: problem.message, ...(problem.hint ? { hint: problem.hint } : {}) },
      ],
    };
  }
  try {
    const errors: InputProblem[] = [];
    if (reader.decryptionNote) warnings.push(reader.decryptionNote);
    for (const sheet of reader.workbook.sheets) {
      if (!sheet.part || !reader.zip.has(sheet.part)) {
        errors.push({
          code: 'CORRUPT_WORKBOOK',
          message: `Sheet "${sheet.name}" has no worksheet part in the package.`,
        });
      } else if (sheet.kind !== 'worksheet') {
        warnings.push(`Sheet "${sheet.name}" is a ${sheet.kind}; only its charts are extracted.`);
      }
      if (sheet.state !== 'visible')
        warnings.push(`Sheet "${sheet.name}" is ${sheet.state}; it is extracted too.`);
    }
    if (reader.workbook.sheets.length === 0) {
      errors.push({ code: 'CORRUPT_WORKBOOK', message: 'The workbook lists no sheets.' });
    }
    const ext = path.extname(file).toLowerCase();
    if (ext === '.xlsm' || ext === '.xltm') warnings.push('Macros (VBA) are neither run nor extracted.');
    // Reading styles and shared strings proves the common parts are well-formed.
    await Promise.all([reader.styles(), reader.sharedStrings()]);
    return {
      is_readable: errors.length === 0,
      format: ext.slice(1),
      sheet_names: reader.sheetNames,
      warnings,
      errors,
    };
  } catch (error) {
    const problem = toToolError(error);
    return { is_readable: false, warnings, errors: [{ code: problem.code, message: problem.message }] };
  } finally {
    reader.close();
  }
}

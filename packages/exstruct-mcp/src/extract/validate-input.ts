import path from 'node:path';
import { toToolError, type FileAccess } from '@mcp-workbench/core/engine';
import { WorkbookReader } from '../ooxml/workbook-reader.js';
import { extractWorkbook } from './extract-workbook.js';
import type { ExtractionMode } from './modes.js';

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

export interface ValidateOptions {
  /** The extraction mode to check for (default standard, extract's default). */
  mode?: ExtractionMode;
  /** How the workbook is opened: a server's PathPolicy (default: the user's own paths). */
  files?: FileAccess;
}

/**
 * Checks that a workbook can be extracted: it runs the very reading that extraction runs (same parts,
 * same parsers, same limits) and keeps nothing, so `is_readable` is true exactly when exstruct_extract
 * in that mode succeeds, and its warnings are the ones extraction would give. Problems are returned,
 * not thrown.
 */
export async function validateInput(
  file: string,
  filesOrOptions?: FileAccess | ValidateOptions,
): Promise<ValidationResult> {
  const options: ValidateOptions =
    filesOrOptions && 'openFile' in filesOrOptions ? { files: filesOrOptions } : (filesOrOptions ?? {});
  const warnings: string[] = [];
  try {
    const ext = path.extname(file).toLowerCase();
    const reader = await WorkbookReader.open(file, {}, options.files);
    try {
      for (const sheet of reader.workbook.sheets) {
        if (sheet.part && reader.zip.has(sheet.part) && sheet.kind !== 'worksheet')
          warnings.push(`Sheet "${sheet.name}" is a ${sheet.kind}; only its charts are extracted.`);
        if (sheet.state !== 'visible')
          warnings.push(`Sheet "${sheet.name}" is ${sheet.state}; it is extracted too.`);
      }
      if (reader.workbook.sheets.length === 0) warnings.push('The workbook lists no sheets.');
    } finally {
      reader.close();
    }
    if (ext === '.xlsm' || ext === '.xltm') warnings.push('Macros (VBA) are neither run nor extracted.');
    const extraction = await extractWorkbook(file, {
      mode: options.mode ?? 'standard',
      files: options.files,
    });
    return {
      is_readable: true,
      format: ext.slice(1),
      sheet_names: extraction.sheetNames,
      warnings: [...warnings, ...extraction.warnings],
      errors: [],
    };
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
}

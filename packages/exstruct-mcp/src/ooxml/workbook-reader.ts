import { ToolError, type FileAccess } from '@mcp-workbench/core/engine';
import { readThemeColors } from './colors.js';
import { DEFAULT_PASSWORD } from './decrypt-package.js';
import { openWorkbookPackage } from './open-package.js';
import { findRel } from './relationships.js';
import { readSharedStrings } from './shared-strings.js';
import { readStyles, type Styles } from './styles.js';
import { readWorkbookPart, type SheetEntry, type WorkbookPart } from './workbook-part.js';
import type { ZipArchive, ZipLimits } from './zip-archive.js';

/**
 * An open workbook package. Opening reads only workbook.xml and its relationships; shared strings and
 * styles load on first use and sheets are streamed one at a time by whoever asks for them.
 */
export class WorkbookReader {
  private sharedStringsPromise: Promise<string[]> | undefined;
  private stylesPromise: Promise<Styles> | undefined;

  private constructor(
    readonly file: string,
    readonly zip: ZipArchive,
    readonly workbook: WorkbookPart,
  ) {}

  /**
   * Opens a workbook; a server passes `files` (its PathPolicy) so the file is opened as checked.
   * `reuseMemory` (see ZipArchive.fromHandle): for a reader whose results keep no bytes of the package.
   */
  static async open(
    file: string,
    limits: Partial<ZipLimits> = {},
    files?: FileAccess,
    options: { reuseMemory?: boolean } = {},
  ): Promise<WorkbookReader> {
    const zip = await openWorkbookPackage(file, limits, files, options);
    try {
      return new WorkbookReader(file, zip, await readWorkbookPart(zip));
    } catch (error) {
      zip.close();
      throw error;
    }
  }

  /** Said once per reading when the workbook was decrypted with Excel's default password. */
  get decryptionNote(): string | undefined {
    return this.zip.decrypted
      ? `The workbook is encrypted with Excel's default password ("${DEFAULT_PASSWORD}", used when a workbook is protected without a password to open); it was decrypted in memory.`
      : undefined;
  }

  /** Names of every sheet, in workbook order (chart sheets included). */
  get sheetNames(): string[] {
    return this.workbook.sheets.map((sheet) => sheet.name);
  }

  /** The sheet entry by exact name, or SHEET_NOT_FOUND listing the names there are. */
  sheet(name: string): SheetEntry {
    const found = this.workbook.sheets.find((sheet) => sheet.name === name);
    if (!found) {
      throw new ToolError('SHEET_NOT_FOUND', `The workbook has no sheet named "${name}".`, {
        hint: `Use one of: ${this.sheetNames.map((n) => JSON.stringify(n)).join(', ')}.`,
        details: { sheet_names: this.sheetNames },
      });
    }
    return found;
  }

  sharedStrings(): Promise<string[]> {
    this.sharedStringsPromise ??= readSharedStrings(
      this.zip,
      findRel(this.workbook.rels, 'sharedStrings')?.target,
    );
    return this.sharedStringsPromise;
  }

  styles(): Promise<Styles> {
    this.stylesPromise ??= (async () => {
      const theme = await readThemeColors(this.zip, findRel(this.workbook.rels, 'theme')?.target);
      return readStyles(this.zip, findRel(this.workbook.rels, 'styles')?.target, theme);
    })();
    return this.stylesPromise;
  }

  close(): void {
    this.zip.close();
  }
}

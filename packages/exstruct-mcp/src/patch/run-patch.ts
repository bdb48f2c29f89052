import path from 'node:path';
import { ToolError, localFiles, type FileAccess } from '@mcp-workbench/core/engine';
import { parseRange, tryParseA1 } from '../ooxml/cell-ref.js';
import type { OnConflict } from '../output/on-conflict.js';
import { applyOps } from './apply-ops.js';
import type { FormulaIssue } from './formula-check.js';
import { inputFormulaErrors, markInputErrors } from './input-formula-errors.js';
import type { PatchOp } from './op-schemas.js';
import { resolveConflict, type OutputAllowed } from '../output/output-path.js';
import { WorkbookPackage } from './package.js';
import { PatchOpError, type PatchDiffItem, type PatchErrorDetail } from './types.js';
import { openWorkbookEdit } from './workbook-edit.js';
import { nullSink, writePackage, type PackageSink, type WriteOutcome } from './write-package.js';
import { ZipWriter } from './zip-writer.js';

export interface PatchRequest {
  /** Absolute path of the workbook to edit (already allowed by the path policy). */
  input: string;
  /** Absolute path the result should go to, before the conflict policy. */
  output: string;
  ops: PatchOp[];
  /**
   * What to do when the output exists; undefined (no tool argument, no --on-conflict): replace it only
   * when `ownedBy` says it is this server's own earlier output, else write `{stem}_1{suffix}`.
   */
  onConflict: OnConflict | undefined;
  /** Whether an existing output is this server's own (exstruct_patch: the input's `{stem}_patched` file). */
  ownedBy?: (file: string) => Promise<boolean>;
  /** How the warning names the files `ownedBy` refuses (ConflictOptions.notOwned). */
  notOwned?: string;
  autoFormula?: boolean;
  dryRun?: boolean;
  returnInverseOps?: boolean;
  preflightFormulaCheck?: boolean;
  /** Deflate level for rewritten parts (1 fastest … 9 smallest). */
  compressionLevel?: number;
  /**
   * How the input is read and the output written: a server passes its PathPolicy (opened as checked,
   * the temp file created in the checked folder); default: the user's own paths.
   */
  files?: FileAccess;
  /** How the input is opened when not through `files` (exstruct_make's seed lives in the server's temp folder). */
  inputFiles?: FileAccess;
  /** Whether a rename candidate may be written (a server passes its PathPolicy's verdict). */
  outputAllowed?: OutputAllowed;
}

export interface PatchResult {
  /** The written file (or, for dry_run and skip, the one that would be written); null after a failure. */
  out_path: string | null;
  patch_diff: PatchDiffItem[];
  inverse_ops: PatchOp[];
  formula_issues: FormulaIssue[];
  warnings: string[];
  error: PatchErrorDetail | null;
}

/** Workbooks and templates, with and without macros: one package format, so one editor. */
export const EDITABLE_EXTENSIONS = ['.xlsx', '.xlsm', '.xltx', '.xltm'] as const;

/** Checks the file type; legacy .xls cannot be edited without Excel (spec 11.3). */
export function assertEditable(file: string): void {
  const ext = path.extname(file).toLowerCase();
  if (ext === '.xls') {
    throw new ToolError(
      'UNSUPPORTED_FORMAT',
      `Editing legacy .xls files requires Excel (COM), which this server does not use: ${path.basename(file)}.`,
      {
        hint: 'Open the file in Excel and save it as .xlsx (or .xlsm), then patch that file.',
      },
    );
  }
  if (!(EDITABLE_EXTENSIONS as readonly string[]).includes(ext)) {
    throw new ToolError(
      'UNSUPPORTED_FORMAT',
      `Only ${EDITABLE_EXTENSIONS.join(', ')} workbooks can be edited; got "${ext || 'no extension'}".`,
      {
        hint: 'Give the path of an .xlsx or .xlsm workbook (or an .xltx/.xltm template).',
      },
    );
  }
}

/**
 * Said when formulas were written: nothing here calculates them, so reading the result back (an
 * extraction, an image) shows them empty, and an agent took its correct fix for a failed one.
 */
const NOT_CALCULATED =
  'Formulas written have no value yet, and formulas that depend on changed cells keep their old one: ' +
  'Excel or LibreOffice calculates them when it opens the workbook (it is marked to recalculate). ' +
  'exstruct_extract and sheet images of the result show the values as saved, so empty for new formulas.';

/** The same when only values changed: a formula reading them still holds its old result. */
export const DEPENDENTS_NOT_CALCULATED =
  'Formulas that depend on changed cells keep their old value until Excel or LibreOffice opens the ' +
  'workbook (it is marked to recalculate): exstruct_extract and sheet images of the result show them as saved.';

class PreflightFailed extends Error {
  constructor(readonly outcome: WriteOutcome) {
    super('preflight formula check failed');
  }
}

/**
 * Applies ops to a workbook, all or nothing: the result is written (atomically) only if every op
 * succeeds and, when asked, the formula check finds no error.
 */
export async function runPatch(request: PatchRequest): Promise<PatchResult> {
  assertEditable(request.input);
  const warnings: string[] = [];
  const result = (outPath: string | null, extra: Partial<PatchResult> = {}): PatchResult => ({
    out_path: outPath,
    patch_diff: [],
    inverse_ops: [],
    formula_issues: [],
    warnings,
    error: null,
    ...extra,
  });
  const conflict = await resolveConflict(request.output, request.onConflict, {
    allowed: request.outputAllowed,
    ...(request.ownedBy ? { ownedBy: request.ownedBy } : {}),
    ...(request.notOwned ? { notOwned: request.notOwned } : {}),
  });
  if (conflict.skip) {
    warnings.push(conflict.warning!);
    if (!request.dryRun) return result(conflict.path);
    warnings.push('Dry run: on_conflict=skip is ignored and the patch is simulated without writing.');
  } else if (conflict.warning) warnings.push(conflict.warning);
  let outPath = conflict.path;

  const pkg = await WorkbookPackage.open(request.input, request.inputFiles ?? request.files);
  try {
    // A dry run writes nothing: no block is deflated ahead for it.
    const edit = await openWorkbookEdit(pkg, request.ops, {
      earlyLevel: request.dryRun ? undefined : (request.compressionLevel ?? 6),
    });
    let applied;
    try {
      applied = await applyOps(edit, request.ops, { autoFormula: request.autoFormula ?? false });
    } catch (error) {
      if (!(error instanceof PatchOpError)) throw error;
      const { opIndex, op } = error as PatchOpError & { opIndex: number; op: PatchOp };
      return result(null, {
        error: {
          op_index: opIndex,
          op: op.op,
          sheet: op.sheet,
          cell: error.cell ?? opCell(op),
          message: error.message,
        },
      });
    }
    warnings.push(...applied.warnings);
    const options = {
      preflight: request.preflightFormulaCheck ?? false,
      macroEnabled: ['.xlsm', '.xltm'].includes(path.extname(request.input).toLowerCase()),
    };
    // Formula errors the input already had are marked and do not block: read only once the output has
    // errors, which is when they matter.
    let inputErrors: ReadonlySet<string> | undefined;
    const markErrors = async (found: WriteOutcome) => {
      if (!options.preflight || !found.formulaIssues.some((i) => i.level === 'error')) return;
      inputErrors ??= await inputFormulaErrors(
        request.input,
        request.inputFiles ?? request.files,
        options.macroEnabled,
      );
      found.formulaIssues = markInputErrors(found.formulaIssues, inputErrors);
    };
    let outcome: WriteOutcome;
    if (request.dryRun) {
      outcome = await writePackage(pkg, edit, nullSink, options);
      await markErrors(outcome);
    } else {
      try {
        outcome = await writeAtomically(
          request,
          (p) => (outPath = p),
          outPath,
          request.onConflict === 'overwrite' || conflict.replaces,
          (sink) => writePackage(pkg, edit, sink, options),
          markErrors,
        );
      } catch (error) {
        if (!(error instanceof PreflightFailed)) throw error;
        const issues = error.outcome.formulaIssues;
        const first = issues.find((i) => i.level === 'error')!;
        const origin = findOrigin(request.ops, first.sheet, first.cell);
        return result(null, {
          formula_issues: issues,
          error: {
            op_index: origin?.index ?? -1,
            op: origin?.op.op ?? 'preflight_formula_check',
            sheet: first.sheet,
            cell: first.cell,
            message: `Formula health check failed, nothing was saved: ${first.message} Fix the formula (or run with dry_run=true to list every issue).`,
          },
        });
      }
    }
    // Another writer took the chosen name while this one wrote: say where the workbook went instead.
    if (outPath !== conflict.path)
      warnings.push(
        `${path.basename(conflict.path)} was written by another call meanwhile; wrote ${path.basename(outPath)} instead.`,
      );
    warnings.push(...outcome.warnings);
    const cellsChanged = applied.diff.filter(
      (item) => item.status === 'applied' && (item.after?.kind === 'formula' || item.after?.kind === 'value'),
    );
    if (cellsChanged.some((item) => item.after?.kind === 'formula')) warnings.push(NOT_CALCULATED);
    else if (cellsChanged.length > 0) warnings.push(DEPENDENTS_NOT_CALCULATED);
    if (request.returnInverseOps) warnings.push(...applied.undoWarnings, ...outcome.undoWarnings);
    return result(outPath, {
      patch_diff: applied.diff,
      inverse_ops: request.returnInverseOps ? [...applied.inverse, ...outcome.rewrittenInverse] : [],
      formula_issues: outcome.formulaIssues,
    });
  } finally {
    pkg.close();
  }
}

async function writeAtomically(
  request: PatchRequest,
  setPath: (p: string) => void,
  initial: string,
  /** Whether the write may replace a file at `initial` (never one that appears at a renamed target). */
  replace: boolean,
  write: (sink: PackageSink) => Promise<WriteOutcome>,
  /** Marks the outcome's formula errors the input already had (they do not block), before it is judged. */
  markErrors: (outcome: WriteOutcome) => Promise<void>,
): Promise<WriteOutcome> {
  let target = initial;
  for (let attempt = 0; ; attempt++) {
    let outcome: WriteOutcome | undefined;
    try {
      await (request.files ?? localFiles).withAtomicFile(
        target,
        async (file) => {
          const zip = new ZipWriter(file, request.compressionLevel ?? 6);
          outcome = await write({
            addRaw: async (open) => {
              const { stream, entry } = await open();
              await zip.addRaw(entry, stream);
            },
            addDeflated: (name, data, early) => zip.addDeflated(name, data, undefined, early),
            finish: () => zip.finish(),
          });
          await markErrors(outcome);
          if (request.preflightFormulaCheck && outcome.formulaIssues.some((i) => i.level === 'error')) {
            throw new PreflightFailed(outcome);
          }
        },
        { noClobber: !(replace && target === initial) },
      );
      setPath(target);
      return outcome!;
    } catch (error) {
      const code = (error as { code?: string }).code;
      if (code === 'EEXIST' && request.onConflict !== 'skip' && attempt < 20) {
        // Another writer took the name: the next free `_N` of the requested name (also without a
        // policy: the new file is not ours). Renaming `target` itself would give `_1_1`, `_1_1_1`.
        target = (await resolveConflict(request.output, 'rename', { allowed: request.outputAllowed })).path;
        continue;
      }
      if (code === 'EEXIST') {
        throw new ToolError(
          'ALREADY_EXISTS',
          `${path.basename(target)} was created by someone else while patching; nothing was written.`,
          {
            hint: 'Retry, or use on_conflict="rename" or "overwrite".',
          },
        );
      }
      throw error;
    }
  }
}

function opCell(op: PatchOp): string | null {
  const o = op as { cell?: string; range?: string; base_cell?: string };
  return o.cell ?? o.range ?? o.base_cell ?? null;
}

function findOrigin(ops: PatchOp[], sheet: string, cell: string): { index: number; op: PatchOp } | undefined {
  const at = tryParseA1(cell);
  if (!at) return undefined;
  for (let i = ops.length - 1; i >= 0; i--) {
    const op = ops[i]!;
    const where = opCell(op);
    if (op.sheet.toLowerCase() !== sheet.toLowerCase() || !where) continue;
    const range = parseRange(where);
    if (
      at.row >= range.start.row &&
      at.row <= range.end.row &&
      at.col >= range.start.col &&
      at.col <= range.end.col
    ) {
      return { index: i, op };
    }
  }
  return undefined;
}

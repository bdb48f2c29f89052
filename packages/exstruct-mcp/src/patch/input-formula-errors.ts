import type { FileAccess } from '@mcp-workbench/core/engine';
import type { FormulaIssue } from './formula-check.js';
import { WorkbookPackage } from './package.js';
import { openWorkbookEdit } from './workbook-edit.js';
import { nullSink, writePackage } from './write-package.js';

/** What makes two formula errors the same one: where it is and what the check says of it. */
export function formulaIssueKey(issue: FormulaIssue): string {
  return `${issue.sheet.toLowerCase()}\u0000${issue.cell}\u0000${issue.code}\u0000${issue.message}`;
}

/**
 * The formula errors the input workbook already has, as the check finds them with no op applied. The
 * formula check judges a patch: a #REF! the workbook had before it is no reason to refuse a fix elsewhere.
 */
export async function inputFormulaErrors(
  input: string,
  files: FileAccess | undefined,
  macroEnabled: boolean,
): Promise<Set<string>> {
  const pkg = await WorkbookPackage.open(input, files);
  try {
    const edit = await openWorkbookEdit(pkg, [], {});
    const outcome = await writePackage(pkg, edit, nullSink, { preflight: true, macroEnabled });
    return new Set(outcome.formulaIssues.filter((i) => i.level === 'error').map(formulaIssueKey));
  } finally {
    pkg.close();
  }
}

/** The input's own errors become warnings that say so; the others are left as they are. */
export function markInputErrors(issues: FormulaIssue[], existing: ReadonlySet<string>): FormulaIssue[] {
  return issues.map((issue) =>
    issue.level === 'error' && existing.has(formulaIssueKey(issue))
      ? {
          ...issue,
          level: 'warning',
          message: `${issue.message} (The workbook had this before the patch; it does not block saving.)`,
        }
      : issue,
  );
}

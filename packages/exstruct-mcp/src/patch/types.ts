import type { FormulaIssue } from './formula-check.js';
import type { Scalar } from './cells.js';
import type { PatchOp } from './op-schemas.js';

export type { FormulaIssue, Scalar, PatchOp };

/** spec 6: a value before/after an op. `style`/`dimension` describe formatting ops. */
export interface PatchValue {
  kind: 'value' | 'formula' | 'sheet' | 'style' | 'dimension' | 'chart';
  value: Scalar | null;
}

export interface PatchDiffItem {
  op_index: number;
  op: string;
  sheet: string;
  cell: string | null;
  before: PatchValue | null;
  after: PatchValue | null;
  status: 'applied' | 'skipped';
}

export interface PatchErrorDetail {
  op_index: number;
  op: string;
  sheet: string;
  cell: string | null;
  message: string;
}

/** Raised inside op application: becomes the result's `error`, nothing is written. */
export class PatchOpError extends Error {
  constructor(
    message: string,
    readonly cell: string | null = null,
  ) {
    super(message);
  }
}

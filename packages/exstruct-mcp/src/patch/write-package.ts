import type { Readable } from 'node:stream';
import path from 'node:path/posix';
import { parseRow, replaceFormulaText, type RowState } from './cells.js';
import { checkFormula, type FormulaIssue } from './formula-check.js';
import { relType } from '../ooxml/namespaces.js';
import { WORKSHEET_CONTENT_TYPE, type WorkbookPackage } from './package.js';
import { addressOf, writeSheet, type RowHooks, type SharedMaster, type SheetEdit } from './sheet-edit.js';
import { SheetScanner } from './sheet-scanner.js';
import type { WorkbookEdit, SheetRef } from './workbook-edit.js';
import {
  rewriteContentTypes,
  rewriteFormulaElements,
  rewriteRels,
  rewriteWorkbookXml,
  ruleFormulas,
  type DefinedNameEdit,
  type SheetListItem,
} from './workbook-xml.js';
import { undoState } from './undo-state.js';
import { applySheetChanges, rewriteSheetReferences, translateFormula } from './formula.js';
import { rewritePivotSources } from './pivot-sources.js';
import { sheetDataScope } from './xml.js';
import { sheetNameNeedles } from './name-needles.js';
import { SHEET_METADATA_CONTENT_TYPE } from './sheet-metadata.js';
import { ROOT_SCOPE } from '../ooxml/xml-tokenizer.js';
import type { RawEntryInfo } from './zip-writer.js';
import type { EarlyBlocks } from './block-deflate.js';
import { openInflated } from './inflate.js';
import { CALC_CHAIN_CONTENT_TYPE } from './content-types.js';
import { freshPartName } from './fresh-names.js';
import { exclusiveParts } from './part-references.js';
import { writeObjectParts } from './parts/object-parts.js';
import { inPart, partError, readPartText } from './part-errors.js';
import type { PatchOp } from './op-schemas.js';

/** Where the package goes: a real ZIP writer, or nowhere (dry run: everything computed, nothing kept). */
export interface PackageSink {
  addRaw(open: () => Promise<{ stream: Readable; entry: RawEntryInfo }>): Promise<void>;
  /** `early`: the part's first blocks, deflated ahead while it was read (a sink may ignore them). */
  addDeflated(
    name: string,
    data: AsyncIterable<Buffer | string> | Buffer | string,
    early?: EarlyBlocks,
  ): Promise<void>;
  finish(): Promise<void>;
}

export const nullSink: PackageSink = {
  async addRaw() {},
  async addDeflated(_name, data) {
    if (typeof data === 'string' || Buffer.isBuffer(data)) return;
    for await (const _chunk of data) void _chunk;
  },
  async finish() {},
};

export interface WriteOptions {
  preflight: boolean;
  macroEnabled: boolean;
}

export interface WriteOutcome {
  formulaIssues: FormulaIssue[];
  /** Cells outside the ops whose formulas changed (references to a renamed/deleted sheet). */
  rewrittenInverse: PatchOp[];
  warnings: string[];
  /** What the inverse ops cannot restore (reported only when they were asked for). */
  undoWarnings: string[];
}

const STYLES_CONTENT_TYPE = 'application/vnd.openxmlformats-officedocument.spreadsheetml.styles+xml';

/**
 * Writes the edited workbook: every part nobody changed is copied still compressed; touched
 * worksheets stream through with only their edited rows rebuilt; workbook.xml, rels, content types
 * and styles are rewritten by small in-place edits.
 */
export async function writePackage(
  pkg: WorkbookPackage,
  edit: WorkbookEdit,
  sink: PackageSink,
  options: WriteOptions,
): Promise<WriteOutcome> {
  const outcome: WriteOutcome = { formulaIssues: [], rewrittenInverse: [], warnings: [], undoWarnings: [] };
  const replaced = new Map<string, AsyncIterable<Buffer | string> | string | (() => AsyncIterable<Buffer>)>();
  const deleted = new Set<string>();
  const early = new Map<string, EarlyBlocks>();
  const added: { part: string; data: string | (() => AsyncIterable<Buffer>) }[] = [];
  const relAdds: { id: string; type: string; target: string }[] = [];
  const relRemoves: string[] = [];
  const typeAdds: { part: string; type: string }[] = [];
  const typeRemoves: string[] = [];
  const entryNames = new Set(pkg.archive.list().map((e) => e.name.toLowerCase()));
  const workbookDir = path.dirname(pkg.workbookPart);
  const workbookPrefix = workbookDir === '.' ? '' : `${workbookDir}/`;
  const relIds = new Set(pkg.workbookRels.map((r) => r.id));
  const nextRelId = () => {
    let n = relIds.size + 1;
    while (relIds.has(`rId${n}`)) n++;
    relIds.add(`rId${n}`);
    return `rId${n}`;
  };
  /**
   * A new part of this kind next to the workbook (`styles.xml`, else `styles2.xml`, … if an entry has
   * that name), wired in with a relationship. The workbook's relationships of the kind whose target is
   * not in the package (missing, or outside it) go, with any override for it: one such part stays.
   */
  const addWorkbookPart = (kind: string, stem: string, type: string, data: string): void => {
    const part = freshPartName(entryNames, workbookPrefix, stem, true);
    for (const rel of pkg.relsOf(kind)) {
      if (rel.external || (rel.part && pkg.has(rel.part))) continue;
      relRemoves.push(rel.id);
      if (rel.part) typeRemoves.push(rel.part); // an override for the missing part goes with it
    }
    added.push({ part, data });
    typeAdds.push({ part, type });
    relAdds.push({
      id: nextRelId(),
      type: relType(pkg.conformance, kind),
      target: path.relative(workbookDir, part),
    });
  };
  const nameChanges = { renames: edit.renames, deletions: edit.deletions };
  const referencesChange = edit.renames.length > 0 || edit.deletions.length > 0;

  // Sheet list: existing sheets keep their ids; new ones get fresh parts, ids and relationships.
  let maxSheetId = Math.max(0, ...pkg.sheets.map((s) => s.sheetId));
  const list: SheetListItem[] = [];
  const newParts = new Map<SheetRef, string>();
  for (const ref of edit.sheets) {
    if (ref.entry) {
      const originalIndex = pkg.sheets.indexOf(ref.entry);
      list.push({
        name: ref.name,
        original: ref.entry.element,
        originalIndex,
        sheetId: ref.entry.sheetId,
        rId: ref.entry.rId,
      });
      continue;
    }
    const part = freshPartName(entryNames, `${workbookPrefix}worksheets/`, 'sheet');
    const rId = nextRelId();
    list.push({
      name: ref.name,
      original: undefined,
      originalIndex: undefined,
      sheetId: ++maxSheetId,
      rId,
      state: ref.state,
    });
    newParts.set(ref, part);
    relAdds.push({
      id: rId,
      type: relType(pkg.conformance, 'worksheet'),
      target: path.relative(workbookDir, part),
    });
    typeAdds.push({ part, type: WORKSHEET_CONTENT_TYPE });
  }

  // Deleted sheets: the part, its relationships and the parts only it used.
  if (edit.removed.length) {
    const owned = await exclusiveParts(
      pkg,
      edit.removed.filter((r) => r.entry).map((r) => r.entry!.part),
    );
    for (const part of owned) {
      deleted.add(part.toLowerCase());
      typeRemoves.push(part);
    }
    for (const ref of edit.removed) if (ref.entry?.rId) relRemoves.push(ref.entry.rId);
  }

  // Formulas changed: Excel must recalculate, and the calculation chain is stale.
  // Only a part the package types as a calculation chain goes (a relationship may name any part).
  const calcChain = pkg.relatedPart('calcChain');
  if (edit.formulasChanged && calcChain) {
    if (pkg.has(calcChain) && pkg.contentTypeOf(calcChain) === CALC_CHAIN_CONTENT_TYPE) {
      deleted.add(calcChain.toLowerCase());
      typeRemoves.push(calcChain);
    }
    relRemoves.push(...pkg.relsOf('calcChain').map((r) => r.id));
  }

  // Styles.
  const styles = edit.stylesTouched;
  if (styles) {
    if (edit.stylesCreated) {
      addWorkbookPart('styles', 'styles', STYLES_CONTENT_TYPE, styles.render());
    } else {
      replaced.set(pkg.relatedPart('styles')!.toLowerCase(), styles.render());
    }
  }

  // Cell metadata for dynamic-array formulas: the workbook's part extended, or a new one wired in.
  const metadata = edit.sheetMetadata.changed();
  if (metadata !== undefined) {
    const own = edit.sheetMetadata.part;
    if (own && pkg.has(own)) replaced.set(own.toLowerCase(), metadata);
    else addWorkbookPart('sheetMetadata', 'metadata', SHEET_METADATA_CONTENT_TYPE, metadata);
  }

  // Defined names set by restore_design_snapshot; a name local to a sheet deleted later goes with it.
  const names: DefinedNameEdit[] = undoState(edit).names.flatMap((n) => {
    const local = n.scope ? edit.sheets.indexOf(n.scope) : undefined;
    return local === -1 ? [] : [{ name: n.name, localSheetId: local, value: n.value, hidden: n.hidden }];
  });
  const workbookChanged =
    list.some((s, i) => s.originalIndex !== i || s.name !== pkg.sheets[s.originalIndex ?? -1]?.name) ||
    list.length !== pkg.sheets.length ||
    edit.contentChanged ||
    referencesChange ||
    names.length > 0;
  if (workbookChanged) {
    replaced.set(
      pkg.workbookPart.toLowerCase(),
      rewriteWorkbookXml(
        pkg.workbookXml,
        {
          sheets: list,
          renames: edit.renames,
          deletions: edit.deletions,
          fullCalcOnLoad: edit.contentChanged,
          names,
        },
        pkg.conformance,
      ),
    );
  }
  if (relAdds.length || relRemoves.length) {
    const rels = rewriteRels(pkg.workbookRelsXml, relAdds, relRemoves, pkg.workbookRelsPart);
    // A workbook without its relationships part gets one (a replacement would have nothing to replace).
    if (pkg.has(pkg.workbookRelsPart)) replaced.set(pkg.workbookRelsPart.toLowerCase(), rels);
    else added.push({ part: pkg.workbookRelsPart, data: rels });
  }
  if (typeAdds.length || typeRemoves.length)
    replaced.set('[content_types].xml', rewriteContentTypes(pkg.contentTypesXml, typeAdds, typeRemoves));

  // Charts and tables the ops added (their parts, relationships, and the sheets' references to them).
  await writeObjectParts(pkg, edit, {
    entryNames,
    added: added as { part: string; data: string }[],
    replaced: replaced as Map<string, string>,
    deleted,
    typeAdds,
    typeRemoves,
    partOf: (ref) => ref.entry?.part || newParts.get(ref),
    conformance: pkg.conformance,
  });
  if (typeAdds.length || typeRemoves.length)
    replaced.set('[content_types].xml', rewriteContentTypes(pkg.contentTypesXml, typeAdds, typeRemoves));

  // Worksheets.
  const check = (sheetName: string) => (state: RowState) => {
    for (const cell of state.cells.values()) {
      if (!cell.formula) continue;
      outcome.formulaIssues.push(
        ...checkFormula(
          sheetName,
          addressOf(state.row, cell.col),
          { row: state.row, col: cell.col },
          cell.formula,
          {
            definedNames: edit.definedNames,
            macroEnabled: options.macroEnabled,
            sheetNames: edit.sheets.map((s) => s.name),
          },
        ),
      );
    }
  };
  // Producers escape names as they like (character references, entities): see name-needles.ts.
  const nameBytes = sheetNameNeedles([
    ...edit.renames.map((r) => r.from),
    ...edit.deletions.map((d) => d.name),
  ]);
  for (const ref of edit.sheets) {
    if (!ref.edit) continue;
    const sheet = ref.edit;
    const hooks: RowHooks = {};
    const visitors: ((state: RowState) => void)[] = [];
    // Shared formula groups whose master a deletion rewrote: their dependents need undoing too.
    const groups: Map<string, MasterText> = new Map(undoState(edit).masters.get(sheet));
    if (referencesChange && ref.entry) {
      // Undo applies these last, when every sheet has its original name again.
      const original = ref.entry.name;
      visitors.push((state) => rewriteStreamedRow(state, sheet, original, edit, outcome, groups));
    }
    if (options.preflight) visitors.push(check(ref.name));
    if (visitors.length) {
      hooks.visit = (state) => visitors.forEach((v) => v(state));
      hooks.wants = (bytes) =>
        (options.preflight && (bytes.includes('<f') || bytes.includes(':f'))) ||
        nameBytes.some((n) => bytes.includes(n)) ||
        // Any spelling of the attribute (si="0", si='0', si = "0"): a hit only means "parse the row".
        (groups.size > 0 && bytes.includes('si'));
    }
    const newPart = newParts.get(ref);
    if (newPart) {
      added.push({ part: newPart, data: () => writeSheet(sheet, undefined, hooks) });
      continue;
    }
    const part = ref.entry!.part;
    const ownTail = sheet.tailRewrite; // rule formulas set by restore_design_snapshot
    const isEdited =
      [...sheet.rows.values()].some((r) => r.raw === undefined) ||
      sheet.colsDirty ||
      sheet.mergesDirty ||
      sheet.brokenShared.size > 0 ||
      ownTail !== undefined;
    const mentions = referencesChange && (await partMentions(pkg, part, nameBytes));
    if (isEdited || mentions) {
      if (sheet.early) early.set(part.toLowerCase(), sheet.early);
      replaced.set(part.toLowerCase(), async function* () {
        try {
          const source = sheet.inflated ?? ((await openInflated(pkg.archive, part)) as AsyncIterable<Buffer>);
          yield* writeSheet(sheet, source, hooks);
        } catch (error) {
          throw partError(part, error);
        }
      });
      if (referencesChange) {
        const original = ref.entry!.name;
        sheet.tailRewrite = (tail) => rewriteTail(ownTail ? ownTail(tail) : tail, original, edit, outcome);
      }
    } else if (options.preflight) {
      await inPart(part, () => scanFormulas(pkg, part, check(ref.name)));
    }
  }

  // Charts, tables (calculated columns, totals) and pivot caches with references to renamed/deleted sheets.
  if (referencesChange) {
    for (const entry of pkg.archive.list()) {
      const lower = entry.name.toLowerCase();
      const chart = /\/charts\/chart\d*\.xml$/i.test(entry.name);
      const table = /\/tables\/table\d*\.xml$/i.test(entry.name);
      const pivot = /\/pivotCache\/pivotCacheDefinition\d*\.xml$/i.test(entry.name);
      if (replaced.has(lower) || deleted.has(lower) || !(chart || table || pivot)) continue;
      if (!(await partMentions(pkg, entry.name, nameBytes))) continue;
      const text = await readPartText(pkg.archive, entry.name);
      let next = text;
      if (chart || table) {
        next = rewriteFormulaElements(text, nameChanges);
        if (next !== rewriteFormulaElements(text, { renames: edit.renames, deletions: [] }))
          outcome.warnings.push(
            `${chart ? 'Chart' : 'Table'} formulas in ${entry.name} that referred to a deleted sheet became #REF!; inverse ops do not restore them.`,
          );
      } else {
        const rewritten = rewritePivotSources(text, nameChanges);
        next = rewritten.xml;
        for (const sheet of rewritten.lostSources)
          outcome.warnings.push(
            `A pivot table reads from the deleted sheet "${sheet}"; refreshing it in Excel will fail until its source is changed.`,
          );
      }
      if (next !== text) replaced.set(lower, next);
    }
  }

  for (const entry of pkg.archive.list()) {
    const lower = entry.name.toLowerCase();
    if (deleted.has(lower)) continue;
    const replacement = replaced.get(lower);
    if (replacement === undefined) {
      await sink.addRaw(() => pkg.archive.openCopyStream(entry.name));
    } else {
      await sink.addDeflated(
        entry.name,
        typeof replacement === 'function' ? replacement() : replacement,
        early.get(lower),
      );
    }
  }
  for (const part of added)
    await sink.addDeflated(part.part, typeof part.data === 'function' ? part.data() : part.data);
  await sink.finish();
  return outcome;
}

/** Where a shared formula's master sits and its text. */
type MasterText = Pick<SharedMaster, 'row' | 'col' | 'formula'>;

/**
 * Rewrites references to renamed/deleted sheets in a row that streamed through unchanged. Cells a
 * deletion broke get inverse ops, shared-formula dependents included (they show their master's text).
 */
function rewriteStreamedRow(
  state: RowState,
  sheet: SheetEdit,
  sheetName: string,
  edit: WorkbookEdit,
  outcome: WriteOutcome,
  groups: Map<string, MasterText>,
): void {
  if (sheet.rows.get(state.row) === state) return; // rows in memory were rewritten when the op ran
  for (const cell of state.cells.values()) {
    const attrs = cell.formulaAttrs;
    const si = attrs?.get('t') === 'shared' ? attrs.get('si') : undefined;
    const master = si !== undefined && !cell.formula ? groups.get(si) : undefined;
    if (master) {
      const formula = translateFormula(master.formula, state.row - master.row, cell.col - master.col);
      const address = addressOf(state.row, cell.col);
      outcome.rewrittenInverse.push({
        op: 'set_formula',
        sheet: sheetName,
        cell: address,
        formula: `=${formula}`,
      });
      continue;
    }
    if (!cell.formula) continue;
    const next = applySheetChanges(cell.formula, edit);
    if (next === undefined || next === cell.formula) continue;
    const deleted = brokenByDeletion(cell.formula, edit);
    if (deleted) {
      const array = attrs?.get('t') === 'array' ? attrs.get('ref') : undefined;
      outcome.rewrittenInverse.push({
        op: 'set_formula',
        sheet: sheetName,
        cell: addressOf(state.row, cell.col),
        formula: `=${cell.formula}`,
        ...(array ? { array_range: array } : {}),
      });
      if (si !== undefined && attrs!.has('ref'))
        groups.set(si, { row: state.row, col: cell.col, formula: cell.formula });
    }
    replaceFormulaText(cell, next, deleted);
    cell.raw = undefined;
    state.raw = undefined;
  }
}

/** Whether one of the patch's sheet deletions (after its renames) turns part of a formula into #REF!. */
function brokenByDeletion(formula: string, edit: WorkbookEdit): boolean {
  const renamed = applySheetChanges(formula, { renames: edit.renames, deletions: [] }) ?? formula;
  return edit.deletions.some((d) => rewriteSheetReferences(renamed, d.name, d) !== undefined);
}

/**
 * Rewrites references in a worksheet's tail (conditional formats, validations); the formulas a
 * deletion broke are put back by a restore_design_snapshot inverse op.
 */
function rewriteTail(tail: string, sheetName: string, edit: WorkbookEdit, outcome: WriteOutcome): string {
  const next = rewriteFormulaElements(tail, { renames: edit.renames, deletions: edit.deletions });
  if (next === tail) return next;
  const restores = ruleFormulas(tail)
    .map((formula, index) => ({ index, formula }))
    .filter((f) => brokenByDeletion(f.formula, edit));
  if (restores.length)
    outcome.rewrittenInverse.push({
      op: 'restore_design_snapshot',
      sheet: sheetName,
      design_snapshot: { rule_formulas: restores },
    });
  return next;
}

/** Whether a part's text contains any of the byte strings (streamed; stops at the first hit). */
async function partMentions(pkg: WorkbookPackage, part: string, needles: Buffer[]): Promise<boolean> {
  if (needles.length === 0) return false;
  const longest = Math.max(...needles.map((n) => n.length));
  let carry = Buffer.alloc(0);
  const stream = await openInflated(pkg.archive, part);
  try {
    for await (const chunk of stream) {
      const buf = Buffer.concat([carry, chunk as Buffer]);
      if (needles.some((n) => buf.includes(n))) return true;
      carry = buf.subarray(Math.max(0, buf.length - longest));
    }
  } finally {
    stream.destroy();
  }
  return false;
}

/** Runs the formula check over a worksheet that is otherwise copied unchanged. */
async function scanFormulas(
  pkg: WorkbookPackage,
  part: string,
  visit: (state: RowState) => void,
): Promise<void> {
  let scope = ROOT_SCOPE;
  const scanner = new SheetScanner({
    head: (bytes) => (scope = sheetDataScope(bytes.toString('utf8'))),
    row: (row, bytes) => {
      if (bytes.includes('<f') || bytes.includes(':f'))
        visit(parseRow(bytes.toString('utf8'), row, () => undefined, scope));
    },
    gap: () => undefined,
    tail: () => undefined,
  });
  for await (const chunk of await openInflated(pkg.archive, part)) scanner.push(chunk as Buffer);
  scanner.end();
}

import { ToolError } from '@mcp-workbench/core/engine';
import { applySheetChanges, type SheetChanges, type SheetDeletion } from './formula.js';
import type { Conformance } from '../ooxml/namespaces.js';
import { qualify } from '../ooxml/xml-tokenizer.js';
import {
  appendChildren,
  buildTag,
  childElements,
  decodeXmlText,
  escapeXml,
  escapeXmlAttr,
  findElement,
  parseAttrs,
  prefixOf,
  splice,
  type Located,
} from './xml.js';

export interface SheetListItem {
  name: string;
  /** The original `<sheet>` element (located in workbook.xml), for sheets that existed. */
  original: Located | undefined;
  /** Original position, for sheets that existed. */
  originalIndex: number | undefined;
  sheetId: number;
  rId: string;
  deleted?: boolean;
  /** Visibility of a new sheet (`hidden`, `veryHidden`); existing sheets keep their element. */
  state?: string;
}

/** A defined name to set (value) or remove (null); `localSheetId` is the index in the new sheet list. */
export interface DefinedNameEdit {
  name: string;
  localSheetId: number | undefined;
  value: string | null;
  hidden: boolean | undefined;
}

export interface WorkbookXmlChanges {
  sheets: SheetListItem[];
  renames: { from: string; to: string }[];
  deletions: SheetDeletion[];
  fullCalcOnLoad: boolean;
  /** Names set by restore_design_snapshot, applied after the references are rewritten. */
  names?: DefinedNameEdit[];
}

/**
 * Rewrites workbook.xml: the sheet list, sheet-scoped defined names (their `localSheetId` follows the
 * sheets), references to renamed/deleted sheets in defined names, the active tab and `calcPr`.
 */
export function rewriteWorkbookXml(
  xml: string,
  changes: WorkbookXmlChanges,
  conformance: Conformance,
): string {
  const root = findElement(xml, 'workbook', { ns: [conformance.main] })!;
  // New elements go where the root's declarations are in force: a prefix bound to the main namespace
  // there (or the default namespace), else a declaration on the element itself.
  const element = (local: string) => qualify(root.scope, conformance.main, local, 'x');
  const open = (local: string, attrs = '', empty = false) => {
    const q = element(local);
    return `<${q.qname}${q.declaration}${attrs}${empty ? '/>' : '>'}`;
  };
  const close = (local: string) => `</${element(local).qname}>`;
  const original = xml;
  let out = xml;
  // Work from the end of the document backwards so earlier offsets stay valid.
  const calc = findElement(out, 'calcPr');
  if (changes.fullCalcOnLoad) {
    if (calc) {
      const attrs = parseAttrs(out.slice(calc.start, calc.openEnd));
      attrs.set('fullCalcOnLoad', '1');
      out = splice(out, calc.start, calc.openEnd, buildTag(calc.qname, attrs, calc.empty));
    } else {
      const after = ['definedNames', 'externalReferences', 'functionGroups', 'sheets']
        .map((n) => findElement(out, n))
        .find((el) => el !== undefined);
      if (after) out = splice(out, after.end, after.end, open('calcPr', ' fullCalcOnLoad="1"', true));
    }
  }
  const oldToNew = new Map<number, number>();
  changes.sheets.forEach((s, i) => {
    if (s.originalIndex !== undefined) oldToNew.set(s.originalIndex, i);
  });
  const edits = [...(changes.names ?? [])];
  const names = findElement(out, 'definedNames');
  if (names || edits.some((e) => e.value !== null)) {
    let kept = (names && !names.empty ? childElements(out, names) : [])
      .map((el) => {
        const text = out.slice(el.start, el.end);
        const attrs = parseAttrs(out.slice(el.start, el.openEnd));
        const local = attrs.get('localSheetId');
        if (local !== undefined) {
          const mapped = oldToNew.get(Number(local));
          if (mapped === undefined) return ''; // scoped to a deleted sheet
          attrs.set('localSheetId', String(mapped));
        }
        let body = el.empty ? '' : decodeXmlText(out.slice(el.openEnd, el.closeStart), false);
        let changed = local !== undefined && String(oldToNew.get(Number(local))) !== local;
        const rewritten = applySheetChanges(body, changes);
        if (rewritten !== undefined) {
          body = rewritten;
          changed = true;
        }
        const at = edits.findIndex((e) => sameName(e, attrs));
        if (at !== -1) {
          const [set] = edits.splice(at, 1);
          if (set!.value === null) return '';
          body = set!.value;
          if (set!.hidden !== undefined) setFlag(attrs, 'hidden', set!.hidden);
          changed = true;
        }
        if (!changed) return text;
        return `${buildTag(el.qname, attrs, false)}${escapeXml(body)}</${el.qname}>`;
      })
      .join('');
    for (const e of edits) {
      if (e.value === null) continue;
      const attrs = new Map([['name', e.name]]);
      if (e.localSheetId !== undefined) attrs.set('localSheetId', String(e.localSheetId));
      if (e.hidden) attrs.set('hidden', '1');
      const q = element('definedName');
      kept += `${buildTag(q.qname, attrs, false).slice(0, -1)}${q.declaration}>${escapeXml(e.value)}</${q.qname}>`;
    }
    if (names?.empty) {
      if (kept) out = splice(out, names.start, names.end, `<${names.qname}>${kept}</${names.qname}>`);
    } else if (names) {
      out = kept
        ? splice(out, names.openEnd, names.closeStart, kept)
        : splice(out, names.start, names.end, '');
    } else {
      // CT_Workbook order: sheets, functionGroups, externalReferences, then definedNames.
      const after = ['externalReferences', 'functionGroups', 'sheets']
        .map((n) => findElement(out, n))
        .find((el) => el !== undefined)!;
      out = splice(out, after.end, after.end, `${open('definedNames')}${kept}${close('definedNames')}`);
    }
  }
  const sheetsEl = findElement(out, 'sheets', { ns: [conformance.main] })!;
  const rendered = changes.sheets
    .map((s) => {
      if (s.original) {
        // The element as written (end tag, content and declarations included); only its name may change.
        const el = s.original;
        const text = original.slice(el.start, el.end);
        // A state Excel does not know (ExcelJS writes "show") means visible; written so, other readers
        // (openpyxl refuses the file otherwise) agree.
        const state = el.attrs.get('state');
        const badState = state !== undefined && !['visible', 'hidden', 'veryHidden'].includes(state);
        if (el.attrs.get('name') === s.name && !badState) return text;
        const attrs = new Map(el.attrs);
        attrs.set('name', s.name);
        if (badState) attrs.delete('state');
        const rest = original.slice(el.openEnd, el.end);
        return buildTag(el.qname, attrs, el.empty) + (el.empty ? '' : rest);
      }
      // A new sheet: its name in the main namespace and its r:id in the relationships namespace, with
      // the prefixes in force inside <sheets> (openpyxl declares r on each <sheet>, not on the root),
      // or declared on the new element.
      const name = qualify(sheetsEl.scope, conformance.main, 'sheet', 'x');
      const id = qualify(sheetsEl.scope, conformance.rel, 'id', 'r', true);
      const state = s.state && s.state !== 'visible' ? ` state="${s.state}"` : '';
      return `<${name.qname}${name.declaration}${id.declaration} name="${escapeXmlAttr(s.name)}" sheetId="${s.sheetId}"${state} ${id.qname}="${escapeXmlAttr(s.rId)}"/>`;
    })
    .join('');
  out = splice(out, sheetsEl.openEnd, sheetsEl.closeStart, rendered);
  const view = findElement(out, 'workbookView');
  if (view) {
    const attrs = parseAttrs(out.slice(view.start, view.openEnd));
    const count = changes.sheets.length;
    let touched = false;
    for (const key of ['activeTab', 'firstSheet']) {
      const value = attrs.get(key);
      if (value === undefined) continue;
      const mapped = oldToNew.get(Number(value)) ?? Math.min(Number(value), count - 1);
      if (String(mapped) !== value) {
        attrs.set(key, String(Math.max(0, mapped)));
        touched = true;
      }
    }
    if (touched) out = splice(out, view.start, view.openEnd, buildTag(view.qname, attrs, view.empty));
  }
  return out;
}

/** The root element a part must have (`<Relationships>`), or CORRUPT_WORKBOOK naming the part. */
function rootElement(xml: string, local: string, part: string): Located {
  const root = findElement(xml, local);
  if (root) return root;
  throw new ToolError('CORRUPT_WORKBOOK', `The part "${part}" has no <${local}> root.`, {
    hint: 'Open and re-save the workbook in Excel, or check where it came from.',
    details: { part },
  });
}

/** Adds/removes `<Override>` entries of [Content_Types].xml. */
export function rewriteContentTypes(
  xml: string,
  add: { part: string; type: string }[],
  remove: string[],
): string {
  const root = rootElement(xml, 'Types', '[Content_Types].xml');
  const removeSet = new Set(remove.map((r) => `/${r}`.toLowerCase()));
  let out = xml;
  if (removeSet.size) {
    const kept = childElements(out, root)
      .map((el) => {
        const text = out.slice(el.start, el.end);
        const part = parseAttrs(text).get('PartName');
        return part && removeSet.has(part.toLowerCase()) ? '' : text;
      })
      .join('');
    out = splice(out, root.openEnd, root.closeStart, kept);
  }
  const p = prefixOf(root.qname);
  const added = add
    .map((a) => `<${p}Override PartName="/${escapeXmlAttr(a.part)}" ContentType="${a.type}"/>`)
    .join('');
  const close = out.lastIndexOf('</');
  return splice(out, close, close, added);
}

/** Adds/removes relationships of a .rels part. */
export function rewriteRels(
  xml: string,
  add: { id: string; type: string; target: string }[],
  removeIds: string[],
  /** Its name, for the error when it is not a relationships part. */
  part: string,
): string {
  const root = rootElement(xml, 'Relationships', part);
  const remove = new Set(removeIds);
  let out = xml;
  if (remove.size && !root.empty) {
    const kept = childElements(out, root)
      .map((el) => {
        const text = out.slice(el.start, el.end);
        return remove.has(parseAttrs(text).get('Id') ?? '') ? '' : text;
      })
      .join('');
    out = splice(out, root.openEnd, root.closeStart, kept);
  }
  const p = prefixOf(root.qname);
  const added = add
    .map((a) => `<${p}Relationship Id="${a.id}" Type="${a.type}" Target="${escapeXmlAttr(a.target)}"/>`)
    .join('');
  return appendChildren(out, findElement(out, 'Relationships')!, added);
}

/**
 * Formula-bearing elements: `<c:f>` of charts; `<formula>`, `<formula1>`, `<xm:f>`… of CF and DV;
 * a table's `<calculatedColumnFormula>` and `<totalsRowFormula>`. The text is decoded before it is
 * rewritten, however the producer escaped it (`&#12501;`, `&#x30D5;`, `&amp;`).
 */
const FORMULA_ELEMENT =
  /<((?:\w+:)?(?:f|formula|formula1|formula2|calculatedColumnFormula|totalsRowFormula))(\s[^>]*)?>([^<]*)<\/\1>/g;

/** Rewrites sheet references inside formula-bearing elements of an XML part (charts, CF, DV, tables). */
export function rewriteFormulaElements(xml: string, changes: SheetChanges): string {
  return xml.replace(FORMULA_ELEMENT, (whole, tag: string, attrs: string | undefined, text: string) => {
    const rewritten = applySheetChanges(decodeXmlText(text, false), changes);
    return rewritten !== undefined ? `<${tag}${attrs ?? ''}>${escapeXml(rewritten)}</${tag}>` : whole;
  });
}

/** The formulas of a worksheet's tail (conditional formats, validations), in document order. */
export function ruleFormulas(tail: string): string[] {
  return [...tail.matchAll(FORMULA_ELEMENT)].map((m) => decodeXmlText(m[3]!, false));
}

/** Replaces formulas of a worksheet's tail by their index in `ruleFormulas` order. */
export function setRuleFormulas(tail: string, edits: readonly { index: number; formula: string }[]): string {
  const byIndex = new Map(edits.map((e) => [e.index, e.formula]));
  let n = 0;
  return tail.replace(FORMULA_ELEMENT, (whole, tag: string, attrs: string | undefined) => {
    const formula = byIndex.get(n++);
    return formula === undefined ? whole : `<${tag}${attrs ?? ''}>${escapeXml(formula)}</${tag}>`;
  });
}

/** The defined names of workbook.xml as written (body decoded). */
export function parseDefinedNames(
  xml: string,
): { name: string; localSheetId: number | undefined; value: string; hidden: boolean }[] {
  const names = findElement(xml, 'definedNames');
  if (!names || names.empty) return [];
  return childElements(xml, names).map((el) => {
    const attrs = parseAttrs(xml.slice(el.start, el.openEnd));
    const local = attrs.get('localSheetId');
    return {
      name: attrs.get('name') ?? '',
      localSheetId: local === undefined ? undefined : Number(local),
      value: el.empty ? '' : decodeXmlText(xml.slice(el.openEnd, el.closeStart), false),
      hidden: attrs.get('hidden') === '1' || attrs.get('hidden') === 'true',
    };
  });
}

function sameName(edit: DefinedNameEdit, attrs: Map<string, string>): boolean {
  const local = attrs.get('localSheetId');
  return (
    edit.name.toLowerCase() === attrs.get('name')?.toLowerCase() &&
    edit.localSheetId === (local === undefined ? undefined : Number(local))
  );
}

function setFlag(attrs: Map<string, string>, key: string, on: boolean): void {
  if (on) attrs.set(key, '1');
  else attrs.delete(key);
}

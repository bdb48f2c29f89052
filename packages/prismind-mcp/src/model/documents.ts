import { ToolError } from '@mcp-workbench/core/engine';
import { safeName } from './names.js';
import { phaseKey } from './progress.js';
import type { CatalogEntry, ProjectConfig } from './types.js';
import { docTypeOf, type DocType } from './vocab.js';

/*
 * The document rules every store and the engine share: phase/task spelling, the folder of each type, the
 * catalog row of a document found rather than created, the procedure naming rule, a new body's heading.
 */

/**
 * "p4-t01", "P4_T01", "Ｐ４－Ｔ０１", "Phase 4-T01", "フェーズ4 T01" → "P4-T01": the phase part is read
 * by phaseKey, the one parser of phase labels, so a document's phase_task is the id get_progress shows.
 * Anything else (共通, 技術選定, 事前設計-T01, …) as given.
 */
export function normalizePhaseTask(value: string): string {
  const text = value.normalize('NFKC').trim();
  const match = /^(.+?)\s*[-_ ]?\s*t\s*(\d+)$/i.exec(text);
  const phase = match ? phaseKey(match[1]!) : '';
  return /^P\d/.test(phase) ? `${phase}-T${match![2]!.padStart(2, '0')}` : text;
}

export function folderFor(project: ProjectConfig, type: DocType): string {
  if (type === '設計書') return safeName(project.drive.design_folder, '設計書');
  if (type === '実装手順書') return safeName(project.drive.procedure_folder, '実装手順書');
  return type;
}

/**
 * The catalog row of a document the server finds rather than creates (a file added by hand, a Doc made
 * in Drive): the spec's defaults, its folder's type, the given identity and times.
 */
export function foundDocumentEntry(
  project: ProjectConfig,
  found: Pick<
    CatalogEntry,
    'doc_id' | 'name' | 'source' | 'location' | 'keywords' | 'updated_at' | 'created_at'
  > & {
    folder: string;
  },
): CatalogEntry {
  // The catalog schema's field order, which answers keep.
  return {
    doc_id: found.doc_id,
    name: found.name,
    source: found.source,
    doc_type: docTypeOfFolder(project, found.folder),
    project: project.project_id,
    phase_task: '共通',
    feature: '',
    reference_timing: '',
    related_docs: [],
    keywords: found.keywords,
    updated_at: found.updated_at,
    created_by: '',
    status: 'active',
    created_at: found.created_at,
    location: found.location,
    content_hash: '',
    keywords_generated: true,
  };
}

/** The document type a folder of the project holds (a file added by hand takes its folder's type). */
export function docTypeOfFolder(project: ProjectConfig, folder: string): DocType {
  if (folder === folderFor(project, '設計書')) return '設計書';
  if (folder === folderFor(project, '実装手順書')) return '実装手順書';
  try {
    return docTypeOf(folder);
  } catch {
    return 'その他';
  }
}

/**
 * The spec's naming rule for procedure docs: P<phase>_T<task>_<feature>_<asset>_<seq>, with the next
 * sequence number free in the folder (a correction is a new task, so seq mostly stays 001).
 */
export function procedureName(
  phaseTask: string,
  feature: string,
  asset: string | undefined,
  used: string[],
): string | undefined {
  const match = /^P(\d+)-T(\d+)$/.exec(phaseTask);
  if (!match) return undefined;
  const parts = [`P${match[1]}`, `T${match[2]}`, feature, ...(asset ? [asset] : [])].map((p) =>
    safeName(p, '_'),
  );
  const stem = parts.join('_');
  const taken = new Set(used.map((n) => n.normalize('NFC')));
  for (let seq = 1; seq < 1000; seq++) {
    const name = `${stem}_${String(seq).padStart(3, '0')}`;
    if (!taken.has(name.normalize('NFC'))) return name;
  }
  throw new ToolError('LIMIT_EXCEEDED', `${stem}_001 … _999 are all taken.`);
}

/** Body of a new document: the heading, then the text (unless the text starts with its own heading). */
export function bodyOf(name: string, content: string): string {
  const text = content.replace(/\r\n/g, '\n');
  return /^#\s/.test(text.trimStart()) ? `${text.trimEnd()}\n` : `# ${name}\n\n${text.trimEnd()}\n`;
}

import { foundDocumentEntry, normalizePhaseTask } from '../model/documents.js';
import type { CatalogEntry, ProjectConfig } from '../model/types.js';
import { CATALOG_STATUSES, DOC_TYPES, docTypeOf, REFERENCE_TIMINGS } from '../model/vocab.js';
import { type StoredDocument, type Stores } from '../store/backend.js';
import { newId, type Engine } from './engine.js';

/** First Markdown heading of a body, for documents a person added without front matter. */
function headingOf(body: string): string | undefined {
  return /^#\s+(.+)$/m.exec(body)?.[1]?.trim();
}

/** A front-matter value a person typed that the catalog cannot take: what it was and what it takes. */
export interface IgnoredField {
  field: string;
  value: string;
  expected: string;
}

const EXPECTED: Record<string, string> = {
  keywords: '文字列のリスト（"  - 語" の行）',
  related_docs: 'doc_id のリスト（"  - doc_…" の行）',
  doc_type: Object.keys(DOC_TYPES).join(' / '),
  status: CATALOG_STATUSES.join(' / '),
  reference_timing: `${REFERENCE_TIMINGS.join(' / ')}、または空`,
};

/**
 * The catalog fields a person may set by editing a document's front matter, checked against the
 * catalog's vocabularies (doc_id, project and dates are not theirs to move). A value the catalog cannot
 * take is left out and named in `ignored`, so sync, search and get_document can say so.
 */
export function handFields(doc: StoredDocument): { fields: Partial<CatalogEntry>; ignored: IgnoredField[] } {
  const typed = doc.fields ?? {};
  const fields: Partial<CatalogEntry> = {};
  const ignored: IgnoredField[] = Object.entries(doc.unreadFields ?? {}).map(([field, value]) => ({
    field,
    value,
    expected: EXPECTED[field] ?? '文字列',
  }));
  const ignore = (field: string, value: string) =>
    ignored.push({ field, value: JSON.stringify(value), expected: EXPECTED[field]! });
  if (typed.name?.trim()) fields.name = typed.name.trim();
  if (typed.phase_task?.trim()) fields.phase_task = normalizePhaseTask(typed.phase_task);
  if (typed.feature !== undefined) fields.feature = typed.feature;
  if (typed.keywords) fields.keywords = typed.keywords;
  if (typed.related_docs) fields.related_docs = typed.related_docs;
  const timing = typed.reference_timing;
  if (timing !== undefined) {
    if (timing === '' || (REFERENCE_TIMINGS as readonly string[]).includes(timing))
      fields.reference_timing = timing;
    else ignore('reference_timing', timing);
  }
  if (typed.status) {
    if ((CATALOG_STATUSES as readonly string[]).includes(typed.status)) fields.status = typed.status;
    else ignore('status', typed.status);
  }
  if (typed.created_by !== undefined) fields.created_by = typed.created_by;
  if (typed.doc_type) {
    try {
      fields.doc_type = docTypeOf(typed.doc_type);
    } catch {
      ignore('doc_type', typed.doc_type);
    }
  }
  return { fields, ignored };
}

/** What sync, search and get_document say about front-matter values a person typed that were not taken. */
export function ignoredFieldsWarning(location: string, ignored: readonly IgnoredField[]): string {
  const each = ignored.map((f) => `${f.field}（${f.value}）は ${f.expected} ではありません`).join('。');
  return `${location} の front matter の値を目録に反映しませんでした（目録の値のままです）: ${each}。ファイルを直してください。`;
}

/**
 * The catalog row of a document file: the known row (or a new one) with the catalog fields its front
 * matter carries, its location and its body hash. Fields a person typed wrong keep the catalog's value
 * (handFields names them).
 */
export function entryFromFile(
  engine: Engine,
  project: ProjectConfig,
  location: string,
  doc: StoredDocument,
  known: CatalogEntry | undefined,
  byId: Map<string, CatalogEntry>,
  at: string,
): CatalogEntry {
  const typed = doc.fields ?? {};
  const { fields } = handFields(doc);
  const base: CatalogEntry =
    known ??
    foundDocumentEntry(project, {
      doc_id: typed.doc_id && !byId.has(typed.doc_id) ? typed.doc_id : newId('doc'),
      name: fields.name ?? headingOf(doc.body) ?? location.split('/').pop()!.replace(/\.md$/, ''),
      source: engine.backend.kind,
      folder: location.split('/')[0] ?? '',
      location,
      keywords: [],
      updated_at: at,
      created_at: at,
    });
  return {
    ...base,
    ...fields,
    location,
    // A row written before the hash covered the front matter keeps its hash while the file is unedited.
    content_hash: doc.content_hash,
  };
}

/**
 * What sync and search say about `related_docs` a person typed into document files (those of `files`
 * whose front matter has any) that name no document of the catalog: kept as typed, and named so they
 * can be mended. Asked once every file is in: a related document may be one read later.
 */
export async function unknownRelatedWarnings(
  stores: Stores,
  files: readonly { location: string; doc: StoredDocument }[],
): Promise<string[]> {
  const warnings: string[] = [];
  const known = new Map<string, boolean>();
  for (const { location, doc } of files) {
    const missing: string[] = [];
    for (const id of doc.fields?.related_docs ?? []) {
      if (!known.has(id)) known.set(id, (await stores.catalog.get(id)) !== undefined);
      if (!known.get(id)) missing.push(id);
    }
    if (missing.length > 0)
      warnings.push(`${location} の related_docs に目録にない doc_id があります: ${missing.join(', ')}。`);
  }
  return warnings;
}

/** What sync and search say about a file copied by hand: it carried another file's doc_id. */
export function copyWarning(location: string, owner: string, ownerId: string, newId: string): string {
  return (
    `${location} は ${owner} と同じ doc_id（${ownerId}）を持っていました（ファイルのコピー）。` +
    `${owner} がその doc_id のままで、${location} には新しい doc_id ${newId} を付けました。`
  );
}

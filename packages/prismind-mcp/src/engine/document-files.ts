import { foundDocumentEntry, normalizePhaseTask } from '../model/documents.js';
import type { CatalogEntry, ProjectConfig } from '../model/types.js';
import { CATALOG_STATUSES, docTypeOf, REFERENCE_TIMINGS } from '../model/vocab.js';
import { type StoredDocument } from '../store/backend.js';
import { newId, type Engine } from './engine.js';

/** First Markdown heading of a body, for documents a person added without front matter. */
function headingOf(body: string): string | undefined {
  return /^#\s+(.+)$/m.exec(body)?.[1]?.trim();
}

/**
 * The catalog row of a document file: the known row (or a new one) with the catalog fields its front
 * matter carries, its location and its body hash. Fields a person typed wrong keep the catalog's value.
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
  const fields = doc.fields ?? {};
  const base: CatalogEntry =
    known ??
    foundDocumentEntry(project, {
      doc_id: fields.doc_id && !byId.has(fields.doc_id) ? fields.doc_id : newId('doc'),
      name: fields.name ?? headingOf(doc.body) ?? location.split('/').pop()!.replace(/\.md$/, ''),
      source: engine.backend.kind,
      folder: location.split('/')[0] ?? '',
      location,
      keywords: [],
      updated_at: at,
      created_at: at,
    });
  let typed: CatalogEntry['doc_type'] = base.doc_type;
  try {
    if (fields.doc_type) typed = docTypeOf(fields.doc_type);
  } catch {
    // keep the catalog's type
  }
  return {
    ...base,
    ...(fields.name ? { name: fields.name } : {}),
    doc_type: typed,
    ...(fields.phase_task ? { phase_task: normalizePhaseTask(fields.phase_task) } : {}),
    ...(fields.feature !== undefined ? { feature: fields.feature } : {}),
    ...(fields.keywords ? { keywords: fields.keywords } : {}),
    ...(fields.related_docs ? { related_docs: fields.related_docs } : {}),
    ...(fields.reference_timing !== undefined &&
    (fields.reference_timing === '' ||
      (REFERENCE_TIMINGS as readonly string[]).includes(fields.reference_timing))
      ? { reference_timing: fields.reference_timing }
      : {}),
    ...(fields.status && (CATALOG_STATUSES as readonly string[]).includes(fields.status)
      ? { status: fields.status }
      : {}),
    ...(fields.created_by !== undefined ? { created_by: fields.created_by } : {}),
    location,
    // A row written before the hash covered the front matter keeps its hash while the file is unedited.
    content_hash: doc.content_hash,
  };
}

/** What sync and search say about a file copied by hand: it carried another file's doc_id. */
export function copyWarning(location: string, owner: string, ownerId: string, newId: string): string {
  return (
    `${location} は ${owner} と同じ doc_id（${ownerId}）を持っていました（ファイルのコピー）。` +
    `${owner} がその doc_id のままで、${location} には新しい doc_id ${newId} を付けました。`
  );
}

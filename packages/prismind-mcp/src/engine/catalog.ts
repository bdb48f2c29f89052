import { bodyOf, normalizePhaseTask } from '../model/documents.js';
import type { CatalogEntry } from '../model/types.js';
import { CATALOG_STATUSES, docTypeOf, oneOf, REFERENCE_TIMINGS } from '../model/vocab.js';
import { extractKeywords } from '../text/keywords.js';
import {
  copyWarning,
  entryFromFile,
  handFields,
  ignoredFieldsWarning,
  unknownRelatedWarnings,
} from './document-files.js';
import { checkProjectId, newId, nowIso, projectNotFound, resolveProject, type Engine } from './engine.js';
import { refreshDocuments } from './freshness.js';
import { checkQuery, foundMessage } from './query.js';

export interface SearchCatalogInput {
  query?: string | undefined;
  project?: string | undefined;
  doc_type?: string | undefined;
  phase_task?: string | undefined;
  feature?: string | undefined;
  reference_timing?: string | undefined;
  status?: string | undefined;
  limit?: number | undefined;
}

export async function searchCatalog(engine: Engine, input: SearchCatalogInput) {
  const status = oneOf('status', input.status ?? 'active', [...CATALOG_STATUSES, 'all'] as const);
  const timing = input.reference_timing
    ? oneOf('reference_timing', input.reference_timing, REFERENCE_TIMINGS)
    : undefined;
  const docType = input.doc_type ? docTypeOf(input.doc_type) : undefined;
  if (input.project) checkProjectId(input.project);
  const query = input.query?.trim();
  const warnings = query ? checkQuery(query) : [];
  warnings.push(...(await refreshDocuments(engine, input.project)));
  const result = await engine.backend.read(async (stores) => {
    // Looked up once: on PostgreSQL each lookup is a round trip the search waits for.
    const project = input.project ? await stores.projects.get(input.project) : undefined;
    if (input.project && !project) throw projectNotFound(input.project);
    return stores.search.searchCatalog({
      ...(query ? { query } : {}),
      ...(project ? { project: project.project_id } : {}),
      ...(docType ? { doc_type: docType } : {}),
      ...(input.phase_task ? { phase_task: normalizePhaseTask(input.phase_task) } : {}),
      ...(input.feature ? { feature: input.feature } : {}),
      ...(timing ? { reference_timing: timing } : {}),
      status,
      limit: input.limit ?? 10,
    });
  });
  const near = result.items.filter((e) => !e.all_terms).length;
  return {
    success: true,
    total_count: result.total_count,
    documents: result.items.map((e) => ({
      doc_id: e.doc_id,
      name: e.name,
      doc_type: e.doc_type,
      project: e.project,
      phase_task: e.phase_task,
      feature: e.feature,
      source: e.source,
      updated_at: e.updated_at,
      keywords: e.keywords,
      reference_timing: e.reference_timing,
      status: e.status,
      ...(query ? { relevance_score: e.relevance_score } : {}),
    })),
    ...(warnings.length + result.warnings.length > 0 ? { warnings: [...warnings, ...result.warnings] } : {}),
    message: query
      ? foundMessage(query, 'ドキュメント', result.total_count, result.items.length - near, near)
      : result.total_count === 0
        ? '該当するドキュメントはありません。'
        : `${result.total_count}件見つかりました${result.total_count > result.items.length ? `（新しい順に${result.items.length}件を表示）` : ''}。`,
  };
}

/**
 * The spec's sync_catalog (Sheets → RAG): here the files are the master. Every Markdown document in the
 * project's folders updates its catalog row from its front matter and hash; a file a person added
 * without front matter gets an id and front matter; a row whose file is gone is archived (kept, so its
 * id still answers). Then the search cache of the project is cleared and filled again.
 */
export async function syncCatalog(engine: Engine, input: { project?: string | undefined }) {
  return engine.backend.write(async (stores) => {
    const project = await resolveProject(engine, stores, input.project);
    if (stores.catalog.syncFromMaster) {
      const counts = await stores.catalog.syncFromMaster(project, nowIso(engine));
      return {
        success: true,
        synced_count: counts.synced,
        added_count: counts.added,
        updated_count: counts.updated,
        archived_count: counts.archived,
        message:
          `目録を同期しました（${counts.synced}件）。` +
          (counts.added || counts.updated || counts.archived
            ? `追加 ${counts.added}件、更新 ${counts.updated}件、ドキュメントが見つからずアーカイブ ${counts.archived}件。`
            : ''),
      };
    }
    const rows = await stores.catalog.list({ project: project.project_id, status: 'all' });
    const byId = new Map(rows.map((e) => [e.doc_id, e]));
    const byLocation = new Map(rows.map((e) => [e.location.normalize('NFC'), e]));
    const { documents: files, skipped } = await stores.documents.scan(project);
    // A file not read (a link, a special file, one over the size limit) is there: its row is not archived.
    const present = new Set(skipped.map((s) => s.location.normalize('NFC')));
    const at = nowIso(engine);
    let added = 0;
    let updated = 0;
    const seen = new Set<string>();
    const warnings: string[] = [];
    const indexed: { entry: CatalogEntry; body: string }[] = [];
    const nfc = (location: string) => location.normalize('NFC');
    // Files on disk (read or not): a row whose file is among them is not a rename's source.
    const onDisk = new Set([...present, ...files.map((f) => nfc(f.location))]);
    // A doc_id belongs first to the file at its row's location, whatever order the files are read in:
    // a hand-made copy (`cp 原本.md コピー.md`) carries the same id and must not take it.
    const owned = new Set(
      files
        .filter(
          (f) =>
            f.doc.fields?.doc_id && nfc(byId.get(f.doc.fields.doc_id)?.location ?? '') === nfc(f.location),
        )
        .map((f) => f.doc.fields!.doc_id!),
    );
    const ownerOf = new Map<string, string>();
    for (const { location, doc } of files) {
      const fileId = doc.fields?.doc_id;
      const idRow = fileId ? byId.get(fileId) : undefined;
      const here = byLocation.get(nfc(location));
      let known: CatalogEntry | undefined;
      if (idRow && nfc(idRow.location) === nfc(location)) known = idRow;
      else if (
        idRow &&
        !owned.has(idRow.doc_id) &&
        !seen.has(idRow.doc_id) &&
        !onDisk.has(nfc(idRow.location)) &&
        (!here || here.doc_id === idRow.doc_id)
      )
        known = idRow; // its file was moved or renamed: the id follows it
      else known = here && !seen.has(here.doc_id) ? here : undefined;
      const next = entryFromFile(engine, project, location, doc, known, byId, at);
      const { ignored } = handFields(doc);
      if (ignored.length > 0) warnings.push(ignoredFieldsWarning(location, ignored));
      if (!known && fileId && (seen.has(next.doc_id) || owned.has(next.doc_id))) next.doc_id = newId('doc');
      if (next.keywords.length === 0) next.keywords = extractKeywords(doc.body, 8, next.name);
      const duplicate = fileId !== undefined && fileId !== next.doc_id && (idRow || ownerOf.has(fileId));
      if (duplicate) {
        const owner = ownerOf.get(fileId) ?? idRow?.location ?? '';
        warnings.push(copyWarning(location, owner, fileId, next.doc_id));
      }
      let body = doc.body;
      if (stores.documents.carriesFields !== false && (!known || fileId !== next.doc_id)) {
        // Give the file its front matter (or its own id), so its id stays with it when it is moved or renamed.
        if (!doc.fields) body = bodyOf(next.name, doc.body);
        next.content_hash = (await stores.documents.write(project, next, body)).content_hash;
      }
      if (!known) added++;
      else if (JSON.stringify(known) !== JSON.stringify(next)) {
        next.updated_at = known.content_hash !== next.content_hash ? at : known.updated_at;
        updated++;
      }
      seen.add(next.doc_id);
      ownerOf.set(next.doc_id, location);
      await stores.catalog.put(next);
      indexed.push({ entry: next, body });
    }
    // A document whose file could not be read (a broken front matter) stays active and findable by its
    // last good index entry until someone fixes it; the warning says so.
    const unread = rows
      .filter((r) => !seen.has(r.doc_id) && present.has(nfc(r.location)))
      .map((r) => r.doc_id);
    let archived = 0;
    for (const row of rows) {
      if (seen.has(row.doc_id) || row.status === 'archived' || present.has(row.location.normalize('NFC')))
        continue;
      await stores.catalog.put({ ...row, status: 'archived', updated_at: at });
      archived++;
    }
    warnings.push(...(await unknownRelatedWarnings(stores, files)));
    const synced = await stores.search.rebuildCatalog(project.project_id, indexed, unread);
    return {
      success: true,
      synced_count: synced,
      added_count: added,
      updated_count: updated,
      archived_count: archived,
      ...(skipped.length + warnings.length > 0
        ? { warnings: [...warnings, ...skipped.map((s) => s.message)] }
        : {}),
      message:
        `目録を同期しました（${synced}件）。` +
        (added || updated || archived
          ? `追加 ${added}件、更新 ${updated}件、ファイルが見つからずアーカイブ ${archived}件。`
          : '') +
        (skipped.length > 0 ? `読まなかったファイルが${skipped.length}件あります（warnings）。` : ''),
    };
  });
}

import type { CatalogEntry, ProjectConfig } from '../model/types.js';
import type { StoredDocument, Stores } from '../store/backend.js';
import { extractKeywords } from '../text/keywords.js';
import { entryFromFile } from './document-files.js';
import { nowIso, type Engine } from './engine.js';

const KEYWORDS = 8;

/**
 * Before a search: takes in the document files a person changed beside the server (edited, added,
 * deleted, renamed) so the search sees them, for backends whose documents can change that way. Only
 * the files the backend reports are read. A failure here never fails the search: it is logged, the
 * files are reported again next time, and the search answers from the index as it is.
 */
export async function refreshDocuments(engine: Engine, projectId?: string): Promise<void> {
  const changes = engine.backend.documentChanges;
  if (!changes) return;
  const projects = await engine.backend.read(async (stores) => {
    if (projectId === undefined) return stores.projects.list();
    const project = await stores.projects.get(projectId);
    return project ? [project] : [];
  });
  for (const project of projects) {
    const locations = await changes.pending(project);
    if (locations.length === 0) continue;
    try {
      await engine.backend.write((stores) => takeIn(engine, stores, project, locations), { views: false });
      await changes.settle(project, locations);
    } catch (error) {
      changes.retry(project, locations);
      engine.logger.warn(
        `Taking in hand edits of ${project.project_id} failed; searching the index as is`,
        error,
      );
    }
  }
}

/** Brings the catalog rows and the search cache of these files up to date with the files. */
async function takeIn(engine: Engine, stores: Stores, project: ProjectConfig, locations: string[]) {
  // Only the rows of these files are looked up: a project may hold ten thousand documents.
  const atLocation = async (location: string) =>
    (await stores.catalog.list({ project: project.project_id, status: 'all', location }))[0];
  const byId = new Map<string, CatalogEntry>();
  const at = nowIso(engine);
  const read = async (location: string): Promise<StoredDocument | undefined> =>
    // The local store reads a document by its location alone.
    stores.documents.read(project, { location } as CatalogEntry);
  const present: { location: string; doc: StoredDocument }[] = [];
  const gone: string[] = [];
  for (const location of new Set(locations)) {
    const doc = await read(location);
    if (doc) present.push({ location, doc });
    else gone.push(location);
  }
  const moved = new Set<string>();
  for (const { location, doc } of present) {
    const ownId = doc.fields?.doc_id;
    const byOwnId = ownId ? (byId.get(ownId) ?? (await stores.catalog.get(ownId))) : undefined;
    const here = await atLocation(location);
    let known =
      byOwnId && byOwnId.project.toLowerCase() === project.project_id.toLowerCase() ? byOwnId : here;
    if (byOwnId && byOwnId.location.normalize('NFC') !== location) {
      // Its id names a row of another file: a rename when that file is gone, else a copy.
      const elsewhere = byOwnId.status === 'active' ? await read(byOwnId.location) : undefined;
      if (elsewhere) known = here;
      else moved.add(byOwnId.location.normalize('NFC'));
    }
    if (ownId && byOwnId && !byId.has(ownId)) byId.set(ownId, byOwnId);
    const next = entryFromFile(engine, project, location, doc, known, byId, at);
    if (known) {
      const bodyChanged = doc.content_hash !== known.content_hash;
      // The catalog hash stays the one the server last wrote or showed: update_document still refuses
      // to overwrite an edit nobody has read (get_document takes the edit in and shows it).
      next.content_hash = known.content_hash || doc.content_hash;
      if (known.keywords_generated && bodyChanged && !doc.fields?.keywords)
        next.keywords = extractKeywords(doc.body, KEYWORDS, `${next.name} ${next.feature}`);
      const same =
        JSON.stringify({ ...next, updated_at: '' }) === JSON.stringify({ ...known, updated_at: '' });
      if (same && !bodyChanged) continue;
      next.updated_at = at;
    } else if (next.keywords.length === 0) {
      next.keywords = extractKeywords(doc.body, KEYWORDS, next.name);
    }
    await stores.catalog.put(next);
    await stores.search.indexDocument(next, doc.body);
    byId.set(next.doc_id, next);
  }
  for (const location of gone) {
    const row = await atLocation(location);
    if (!row || row.status !== 'active' || moved.has(location)) continue;
    await stores.catalog.put({ ...row, status: 'archived', updated_at: at });
  }
}

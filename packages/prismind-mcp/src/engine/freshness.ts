import { ToolError } from '@mcp-workbench/core/engine';
import type { CatalogEntry, ProjectConfig } from '../model/types.js';
import { type StoredDocument, type Stores } from '../store/backend.js';
import { extractKeywords } from '../text/keywords.js';
import {
  copyWarning,
  entryFromFile,
  handFields,
  ignoredFieldsWarning,
  unknownRelatedWarnings,
} from './document-files.js';
import { nowIso, type Engine } from './engine.js';

const KEYWORDS = 8;

/**
 * Before a search: takes in the document files a person changed beside the server (edited, added,
 * deleted, renamed) so the search sees them, for backends whose documents can change that way. Only
 * the files the backend reports are read. A failure here never fails the search: it is logged, the
 * files are reported again next time, and the search answers from the index as it is.
 */
export async function refreshDocuments(engine: Engine, projectId?: string): Promise<string[]> {
  const changes = engine.backend.documentChanges;
  // A read-only store cannot record what it took in: it is searched as it is.
  if (!changes || engine.backend.readOnly) return [];
  const warnings: string[] = [];
  const projects = await engine.backend.read(async (stores) => {
    if (projectId === undefined) return stores.projects.list();
    const project = await stores.projects.get(projectId);
    return project ? [project] : [];
  });
  for (const project of projects) {
    const locations = await changes.pending(project);
    if (locations.length === 0) continue;
    try {
      const skipped = await engine.backend.write((stores) => takeIn(engine, stores, project, locations), {
        views: false,
      });
      warnings.push(...skipped);
      await changes.settle(project, locations);
    } catch (error) {
      changes.retry(project, locations);
      engine.logger.warn(
        `Taking in hand edits of ${project.project_id} failed; searching the index as is`,
        error,
      );
    }
  }
  return warnings;
}

/** A file the store refused to read (a link, a special file, one over the size limit): said, never read. */
function refused(error: unknown): error is ToolError {
  return (
    error instanceof ToolError &&
    ['PATH_OUTSIDE_ROOT', 'UNSUPPORTED_FORMAT', 'LIMIT_EXCEEDED'].includes(error.code)
  );
}

/**
 * Brings the catalog rows and the search cache of these files up to date with the files; returns what
 * it says about files it would not read (they are neither indexed nor archived).
 */
async function takeIn(
  engine: Engine,
  stores: Stores,
  project: ProjectConfig,
  locations: string[],
): Promise<string[]> {
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
  const skipped: string[] = [];
  const notes: string[] = [];
  for (const location of new Set(locations)) {
    let doc: StoredDocument | undefined;
    try {
      doc = await read(location);
    } catch (error) {
      if (!refused(error)) throw error;
      skipped.push(error.message);
      continue;
    }
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
    let copyOf: string | undefined;
    if (byOwnId && byOwnId.location.normalize('NFC') !== location) {
      // Its id names a row of another file: a rename when that file is gone, else a copy.
      const elsewhere = byOwnId.status === 'active' ? await read(byOwnId.location) : undefined;
      if (elsewhere) {
        known = here;
        copyOf = byOwnId.location;
      } else moved.add(byOwnId.location.normalize('NFC'));
    }
    if (ownId && byOwnId && !byId.has(ownId)) byId.set(ownId, byOwnId);
    const next = entryFromFile(engine, project, location, doc, known, byId, at);
    const { ignored } = handFields(doc);
    if (ignored.length > 0) notes.push(ignoredFieldsWarning(location, ignored));
    if (known) {
      const bodyChanged = doc.content_hash !== known.content_hash;
      // The catalog hash stays the one the server last wrote or showed: update_document still refuses
      // to overwrite an edit nobody has read (get_document takes the edit in and shows it).
      next.content_hash = known.content_hash || doc.content_hash;
      if (known.keywords_generated && bodyChanged && !doc.fields?.keywords)
        next.keywords = extractKeywords(doc.body, KEYWORDS, `${next.name} ${next.feature}`);
      const same =
        JSON.stringify({ ...next, updated_at: '' }) === JSON.stringify({ ...known, updated_at: '' });
      if (same && !bodyChanged && !copyOf) continue;
      next.updated_at = at;
    } else if (next.keywords.length === 0) {
      next.keywords = extractKeywords(doc.body, KEYWORDS, next.name);
    }
    if (copyOf && stores.documents.carriesFields !== false) {
      // A copy keeps the original's id in its front matter: it gets its own, or the next sync would
      // find two files claiming one id.
      next.content_hash = (await stores.documents.write(project, next, doc.body)).content_hash;
      notes.push(copyWarning(location, copyOf, ownId!, next.doc_id));
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
  if (skipped.length > 0) engine.logger.warn(`Document files not read: ${skipped.join(' ')}`);
  notes.push(...(await unknownRelatedWarnings(stores, present)));
  return [...notes, ...skipped];
}

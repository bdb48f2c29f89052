import type { KnowledgeEntry } from '../model/types.js';
import type { Engine } from './engine.js';
import { restoreProject, snapshotProject } from './transfer.js';

export interface MigrateResult {
  /** Projects copied (ids). */
  projects: string[];
  /** Projects the target already had: left as they are there. */
  skipped: string[];
  documents: number;
  tasks: number;
  knowledge: number;
}

/**
 * Copies every project of one store into another (`prismind-mcp migrate`): settings, progress, session
 * states of every user, catalog and documents, and all knowledge (including entries of no project or of
 * a deleted one). Each project goes over in one write transaction of its own; a project the target
 * already has is skipped, so running it again after an interruption finishes the job without duplicates.
 */
export async function migrateStore(from: Engine, to: Engine): Promise<MigrateResult> {
  const result: MigrateResult = { projects: [], skipped: [], documents: 0, tasks: 0, knowledge: 0 };
  const { projects, all, documents } = await from.backend.read(async (stores) => ({
    projects: await stores.projects.list(),
    all: await stores.search.listKnowledge(),
    documents: (await stores.catalog.list({ status: 'all' })).length,
  }));
  const existing = new Set(
    (await to.backend.read((stores) => stores.projects.list())).map((p) => p.project_id.toLowerCase()),
  );
  const copy = async () => {
    for (const project of projects) {
      if (existing.has(project.project_id.toLowerCase())) {
        result.skipped.push(project.project_id);
        continue;
      }
      const data = await snapshotProject(from, project.project_id);
      const bodies = new Map(data.documents.map((d) => [d.doc_id, d.body]));
      const done = await restoreProject(to, data.file, bodies);
      result.projects.push(project.project_id);
      result.documents += done.documents;
      result.tasks += done.tasks;
      result.knowledge += done.knowledge;
    }
    // Knowledge no project carried over (a deleted project's, or added while no project existed).
    result.knowledge += await to.backend.write(async (stores) => {
      const known = new Set((await stores.search.listKnowledge()).map((k) => k.knowledge_id));
      const rest: KnowledgeEntry[] = all.filter((k) => !known.has(k.knowledge_id));
      for (const entry of rest) await stores.search.addKnowledge(entry);
      return rest.length;
    });
  };
  // One bulk load for the whole copy (PostgreSQL builds its vector indexes once, at the end).
  if (to.backend.bulk) await to.backend.bulk({ knowledge: all.length, documents }, copy);
  else await copy();
  return result;
}

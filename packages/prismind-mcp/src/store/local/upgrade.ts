import type { Logger } from '@mcp-workbench/core/engine';
import type { RunsTransactions } from './context.js';
import type { LocalSearchIndex } from './search-index.js';

/** What version 4 of the store indexed differently: bodies past 2,000 characters, and emoji. */
const OLD_BODY_INDEXED = 2000;
const EMOJI = /[\p{Extended_Pictographic}]/u;

/**
 * Once after migration 5 (its `meta` row says so): indexes again the documents whose body was longer
 * than version 4 indexed or holds emoji, and the knowledge entries with emoji, in one write. Documents
 * whose file is gone or unreadable are left to the next search or sync_catalog.
 */
export async function indexAgainIfNeeded(backend: RunsTransactions, logger: Logger): Promise<void> {
  const done = await backend.writeWith(
    async (stores, ctx) => {
      const pending = ctx.db.prepare("SELECT value FROM meta WHERE key = 'index_again'").get();
      if (!pending) return undefined;
      let documents = 0;
      for (const entry of await stores.catalog.list({ status: 'all' })) {
        const project = await stores.projects.get(entry.project);
        if (!project || entry.location === '') continue;
        const doc = await stores.documents.read(project, entry).catch(() => undefined);
        if (!doc || (doc.body.length <= OLD_BODY_INDEXED && !EMOJI.test(doc.body))) continue;
        await stores.search.indexDocument(entry, doc.body);
        documents++;
      }
      const knowledge = (stores.search as LocalSearchIndex).indexKnowledgeAgain((text) => EMOJI.test(text));
      ctx.db.prepare("DELETE FROM meta WHERE key = 'index_again'").run();
      return { documents, knowledge };
    },
    { views: false },
  );
  if (done && done.documents + done.knowledge > 0) {
    logger.info(
      `Indexed ${done.documents} documents whole and ${done.knowledge} knowledge entries with emoji again`,
    );
  }
}

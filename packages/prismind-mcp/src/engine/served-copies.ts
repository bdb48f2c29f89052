import type { Engine } from './engine.js';

/**
 * Which copy of each document this server's agent has seen (Engine.served). Without expected_hash, a
 * replace is the agent's copy plus its change: if the document changed since this server last showed
 * it (another agent or process saved an edit), the replace would silently drop that edit.
 */

/** Remembers the body the agent was shown (get_document) or wrote (create_document). */
export function rememberServed(engine: Engine, docId: string, contentHash: string): void {
  engine.served.set(docId, contentHash);
}

/**
 * The hash the agent last saw, when a replace without expected_hash would overwrite a change made
 * since. An append keeps what is there, and a document never shown through this server has no copy
 * to compare: neither is refused here.
 */
export function unreadChange(
  engine: Engine,
  docId: string,
  currentHash: string,
  write: { replace: boolean; expected_hash?: string | undefined },
): string | undefined {
  if (!write.replace || write.expected_hash !== undefined) return undefined;
  const seen = engine.served.get(docId);
  return seen !== undefined && seen !== currentHash ? seen : undefined;
}

/**
 * After an update: the agent knows the new body if it replaced it, or if it had seen the body it
 * changed. An append on top of a change it never read leaves its copy stale, so a later replace is
 * still checked.
 */
export function rememberUpdate(
  engine: Engine,
  docId: string,
  before: string,
  after: string,
  write: { replace: boolean; expected_hash?: string | undefined },
): void {
  const seen = engine.served.get(docId);
  if (write.replace || write.expected_hash === before || seen === undefined || seen === before)
    engine.served.set(docId, after);
}

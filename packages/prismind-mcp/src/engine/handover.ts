import type { SessionState } from '../model/types.js';
import type { Stores } from '../store/backend.js';

/**
 * Whether a state hands something over to the next session: a summary, a next action or notes.
 * Blockers alone do not count: a state saved when a session starts carries the progress sheet's
 * blockers and nothing a person wrote. Matches `SessionStore.latest`'s order.
 */
export function handsOver(state: SessionState | undefined): state is SessionState {
  return Boolean(state && (state.last_summary || state.next_action || state.notes));
}

/**
 * The team's last handover, for a user with none of their own in the project (new to it): what someone
 * else saved last. States are kept per user (the spec's key `session:{project}:{user}`); without this a
 * newcomer starts from nothing while the team's next action and blockers sit in another user's state.
 */
export async function teamHandover(
  stores: Stores,
  project: string,
  user: string,
): Promise<SessionState | undefined> {
  const latest = await stores.sessions.latest(project);
  return latest && latest.user !== user && handsOver(latest) ? latest : undefined;
}

/** The user's state, continuing from another user's handover. */
export function continueFrom(state: SessionState, handover: SessionState): SessionState {
  return {
    ...state,
    last_summary: handover.last_summary,
    next_action: handover.next_action,
    blockers: handover.blockers,
    notes: handover.notes,
  };
}

/** Whether two states hand over the same thing: a save that changes none of it has nothing new to hand over. */
export function sameHandover(a: SessionState, b: SessionState): boolean {
  return (
    a.last_summary === b.last_summary &&
    a.next_action === b.next_action &&
    a.notes === b.notes &&
    JSON.stringify(a.blockers) === JSON.stringify(b.blockers)
  );
}

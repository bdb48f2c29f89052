// Another round keeps the comments of earlier ones: they are marked with their round, because the
// verdict of this round counts only what the person writes now (the agent's answer marks them alike).
import type { SessionView } from './api.js';
import { h } from './dom.js';
import { t } from './i18n.js';

/** The earlier round a comment was kept from, or undefined for one written this round. */
export function earlierRound(comment: { round?: number }, session: Pick<SessionView, 'round'>) {
  const round = comment.round ?? 1;
  return round < session.round ? round : undefined;
}

/** The "round n" tag of a comment kept from an earlier round (nothing for this round's). */
export function earlierTag(round: number | undefined): HTMLElement | null {
  return round === undefined
    ? null
    : h('span', { class: 'earlier', title: t.fromRoundTitle(round) }, t.fromRound(round));
}

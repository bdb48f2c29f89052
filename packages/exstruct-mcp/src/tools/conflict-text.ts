import type { OnConflict } from '../output/on-conflict.js';

/**
 * What a tool does with an existing output when the call gives no on_conflict, in one sentence for its
 * description: the server's --on-conflict when it has one, else `unset` (the tool's own safe default).
 */
export function conflictDefaultText(server: OnConflict | undefined, unset: string): string {
  const given = {
    overwrite: 'An existing output is replaced',
    skip: 'Nothing is written over an existing output',
    rename: 'An existing output is kept and the new one named _1, _2…',
  };
  const text = server === undefined ? unset : `${given[server]} (server default)`;
  return `${text}; on_conflict overrides.`;
}

/** search_catalog and search_knowledge match a hyphenated word ("e-mail", "x-ray") the same way. */
import { describe, expect, it } from 'vitest';
import { useLocalStore } from './harness.js';

const local = useLocalStore({ project: true });

const TEXTS = [
  'Triggers fire when the player steps on a trap. Use C++ and co-op mode; e-mail me.',
  'Send an e-mail after the x-ray scan.',
  'please e-mail',
  'The mail arrives at e o clock.', // both parts, not the word: no match
];

describe('hyphenated words', () => {
  it('are found by both searches, in the same entries', async () => {
    for (const [i, content] of TEXTS.entries()) {
      await local.client.call('create_document', {
        name: `doc${i}`,
        doc_type: '設計書',
        content,
        phase_task: '共通',
      });
      await local.client.call('add_knowledge', { content, category: `k${i}` });
    }
    for (const [query, count] of [
      ['e-mail', 3],
      ['x-ray', 1],
      ['c++', 1],
      ['co-op', 1],
    ] as const) {
      const docs = await local.client.call<{ total_count: number }>('search_catalog', { query });
      const known = await local.client.call<{ total_count: number }>('search_knowledge', { query });
      expect([query, docs.total_count, known.total_count]).toEqual([query, count, count]);
    }
  });
});

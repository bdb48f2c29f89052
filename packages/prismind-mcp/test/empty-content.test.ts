/** An empty content is refused (README: empty fields are INVALID_ARGUMENT): it would erase the body. */
import { describe, expect, it } from 'vitest';
import { useLocalStore } from './harness.js';

const local = useLocalStore({ project: true });

describe('empty content', () => {
  it('update_document refuses "" and whitespace, says to omit it, and keeps the body', async () => {
    const { doc_id } = await local.client.call<{ doc_id: string }>('create_document', {
      name: '設計',
      doc_type: '設計書',
      content: '本文は残る',
      phase_task: '共通',
    });
    for (const content of ['', '  \n\t']) {
      for (const append of [false, true]) {
        const error = await local.client.fail('update_document', { doc_id, content, append });
        expect(error.code).toBe('INVALID_ARGUMENT');
        expect(error.hint).toMatch(/Omit content to keep the body/);
      }
    }
    const got = await local.client.call<{ document: { content: string } }>('get_document', { doc_id });
    expect(got.document.content).toContain('本文は残る');
  });

  it('create_document refuses an empty content and creates nothing', async () => {
    const error = await local.client.fail('create_document', {
      name: '空',
      doc_type: '設計書',
      content: ' ',
      phase_task: '共通',
    });
    expect(error.code).toBe('INVALID_ARGUMENT');
    expect((await local.client.call<{ total_count: number }>('search_catalog', {})).total_count).toBe(0);
  });
});

/** update_project refuses document folders that are paths; a second end_session says none was running. */
import { describe, expect, it } from 'vitest';
import { useLocalStore } from './harness.js';

const local = useLocalStore({ project: true });

describe('update_project drive folders', () => {
  it('refuses a path, an absolute path, an empty name or a name it would rewrite, changing nothing', async () => {
    for (const folder of ['../../outside', '/tmp/outside', 'a/b', '..', '', 'a:b']) {
      const error = await local.client.fail('update_project', {
        project: 'trapxtrap',
        drive: { design_folder: folder },
      });
      expect([folder, error.code]).toEqual([folder, 'INVALID_ARGUMENT']);
    }
    const ok = await local.client.call<{ updated_fields: string[] }>('update_project', {
      project: 'trapxtrap',
      drive: { design_folder: '基本設計' },
    });
    expect(ok.updated_fields).toEqual(['drive.design_folder']);
  });
});

describe('end_session', () => {
  it('says there was no running session the second time', async () => {
    await local.client.call('start_session', {});
    const first = await local.client.call<{ message: string }>('end_session', {
      summary: 's',
      next_action: 'n',
    });
    expect(first.message).toBe('セッション状態を保存しました。');
    const second = await local.client.call<{ message: string }>('end_session', {
      summary: 's',
      next_action: 'n',
    });
    expect(second.message).toContain('実行中のセッションはありませんでした');
  });
});

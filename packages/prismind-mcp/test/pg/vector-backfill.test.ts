import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import pg from 'pg';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { connect, type StoreFixture } from '../harness.js';
import { postgresStore, serverUrl } from './postgres-fixture.js';

const { url: base, kind } = serverUrl();

describe(`n-gram vectors of entries written while pgvector was off (${kind})`, () => {
  let store: StoreFixture;
  beforeEach(async () => {
    store = await postgresStore(base);
  });
  afterEach(async () => store.cleanup());

  /** A server with storage.pgvector as given writes one knowledge entry and one document. */
  async function writeWith(pgvector: boolean, label: string) {
    await writeFile(path.join(store.home, 'config.toml'), `[storage]\npgvector = ${pgvector}\n`);
    const client = await connect(store);
    try {
      if (label === 'first') await client.call('setup_project', { project: 'trapxtrap', name: 'Trap' });
      await client.call('add_knowledge', {
        content: `レプリケーション遅延の監視 ${label}`,
        category: '技術Tips',
      });
      await client.call('create_document', {
        name: `監視手順 ${label}`,
        doc_type: '設計書',
        content: `レプリケーション遅延の監視とアラート ${label}`,
        phase_task: '共通',
      });
    } finally {
      await client.close();
    }
  }

  /** Knowledge entries and catalog rows that have no n-gram vector. */
  async function withoutVector(): Promise<{ knowledge: number; catalog: number }> {
    const schema = `"${new URL(store.env.PRISMIND_DATABASE_URL!).searchParams.get('schema')!}"`;
    const client = new pg.Client({ connectionString: base });
    await client.connect();
    try {
      const count = async (table: string) =>
        Number(
          (
            await client.query<{ n: string }>(
              `SELECT count(*) AS n FROM ${schema}.${table} x WHERE NOT EXISTS (SELECT 1 FROM ${schema}.${table}_vec v WHERE v.id = x.id)`,
            )
          ).rows[0]!.n,
        );
      return { knowledge: await count('knowledge'), catalog: await count('catalog') };
    } finally {
      await client.end();
    }
  }

  it('are filled in once pgvector is on, and a server with it off still writes them', async () => {
    await writeWith(false, 'first');
    // The vector tables come with the first server that uses pgvector; it fills in what came before.
    await writeWith(true, 'second');
    expect(await withoutVector()).toEqual({ knowledge: 0, catalog: 0 });
    // A teammate whose config turns pgvector off writes into the tables that are there.
    await writeWith(false, 'third');
    expect(await withoutVector()).toEqual({ knowledge: 0, catalog: 0 });
  });
});

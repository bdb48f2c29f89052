import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { connect, tempDir } from '../harness.js';
import { serverUrl, withSchema } from './postgres-fixture.js';

const { url: base, kind } = serverUrl();

async function admin(sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: base });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

// PGlite has one role: privileges cannot be taken away there.
describe.runIf(kind === 'server')('a role that owns its schema and may not create schemas', () => {
  it("starts on the schema it owns (README: 'or an existing schema it owns')", async () => {
    const name = `t_own_${randomBytes(4).toString('hex')}`;
    // A new role has no CREATE on the database (PUBLIC has only CONNECT and TEMP).
    await admin(`CREATE ROLE ${name} LOGIN; CREATE SCHEMA ${name} AUTHORIZATION ${name}`);
    const home = await tempDir();
    const url = new URL(withSchema(base, name));
    url.username = name;
    url.password = '';
    const client = await connect({
      env: { PRISMIND_HOME: home, PRISMIND_BACKEND: 'postgres', PRISMIND_DATABASE_URL: url.href },
      home,
      cleanup: async () => undefined,
    });
    try {
      await client.call('setup_project', { project: 'trapxtrap', name: 'Trap' });
      const listed = await client.call<{ projects: unknown[] }>('list_projects');
      expect(listed.projects).toHaveLength(1);
    } finally {
      await client.close();
      await admin(`DROP SCHEMA ${name} CASCADE; DROP ROLE ${name}`);
    }
  });
});

import { randomBytes } from 'node:crypto';
import { rm } from 'node:fs/promises';
import pg from 'pg';
import { inject } from 'vitest';
import { tempDir, type BackendFixture, type StoreFixture } from '../harness.js';

/**
 * The PostgreSQL server the tests use: PRISMIND_TEST_DATABASE_URL (a real server; CI starts one), else
 * the PGlite of the global setup. PRISMIND_REQUIRE_POSTGRES=1 (set by CI) makes a missing or unreachable
 * real server a failure instead of a quiet fallback.
 */
export function serverUrl(): { url: string; kind: 'server' | 'pglite' } {
  const url = process.env.PRISMIND_TEST_DATABASE_URL?.trim();
  if (url) return { url, kind: 'server' };
  if (process.env.PRISMIND_REQUIRE_POSTGRES === '1') {
    throw new Error(
      'PRISMIND_REQUIRE_POSTGRES=1 but PRISMIND_TEST_DATABASE_URL is not set: CI must start PostgreSQL (see .ci/run).',
    );
  }
  return { url: inject('pgliteUrl'), kind: 'pglite' };
}

/** A URL with prismind's `schema` parameter. */
export function withSchema(url: string, schema: string): string {
  const u = new URL(url);
  u.searchParams.set('schema', schema);
  return u.href;
}

export async function dropSchema(url: string, schema: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  } finally {
    await client.end();
  }
}

/** A fresh, empty store: a schema of its own on the server, and a home folder for config.toml. */
export async function postgresStore(url: string): Promise<StoreFixture> {
  const schema = `t_${randomBytes(6).toString('hex')}`;
  const home = await tempDir();
  return {
    env: {
      PRISMIND_HOME: home,
      PRISMIND_BACKEND: 'postgres',
      PRISMIND_DATABASE_URL: withSchema(url, schema),
    },
    home,
    async cleanup() {
      await rm(home, { recursive: true, force: true });
      await dropSchema(url, schema);
    },
  };
}

export const postgresBackend: BackendFixture = {
  name: 'postgres',
  create: () => postgresStore(serverUrl().url),
};

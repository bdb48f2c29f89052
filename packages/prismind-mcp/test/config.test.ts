import { mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config/config.js';
import { connect, localBackend, type StoreFixture } from './harness.js';

describe('config.toml and the store', () => {
  let store: StoreFixture;
  beforeEach(async () => {
    store = await localBackend.create();
  });
  afterEach(async () => store.cleanup());

  const write = (text: string) => {
    const file = path.join(store.home, 'config.toml');
    writeFileSync(file, text);
    return file;
  };

  it('a missing file means local defaults under PRISMIND_HOME; env overrides backend and URL', () => {
    const config = loadConfig({ env: { PRISMIND_HOME: store.home } });
    expect(config).toMatchObject({
      home: store.home,
      config_found: false,
      storage: { backend: 'local', url: '', busy_timeout_ms: 5000 },
      session: { auto_save_interval: 20, default_user: os.userInfo().username },
      user_source: 'os',
      log: { level: 'INFO', file: '', format: 'text' },
      google: { credentials_path: 'credentials.json', token_path: 'token.json' },
      services: { memory_server_url: 'http://localhost:8080', rag_server_url: 'http://localhost:8000' },
    });
    const env = loadConfig({
      env: {
        PRISMIND_HOME: store.home,
        PRISMIND_BACKEND: 'postgres',
        PRISMIND_DATABASE_URL: 'postgres://db/x',
      },
    });
    expect(env.storage).toMatchObject({ backend: 'postgres', url: 'postgres://db/x' });
  });

  it('reads the spec sections and names the key of every mistake', () => {
    write('[session]\nauto_save_interval = 5\ndefault_user = "佐藤"\n[log]\nlevel = "DEBUG"\n');
    expect(loadConfig({ env: { PRISMIND_HOME: store.home } }).session).toMatchObject({
      auto_save_interval: 5,
      default_user: '佐藤',
    });
    const cases: [string, RegExp][] = [
      ['[session]\nauto_save_interval = "twenty"\n', /session\.auto_save_interval/],
      ['[storage]\nbackend = "mysql"\n', /storage\.backend/],
      ['[sesion]\n', /unknown key "sesion"/],
      ['[log]\nlevel = "LOUD"\n', /log\.level/],
      ['[session\n', /invalid TOML at line 1/],
    ];
    for (const [text, pattern] of cases) {
      write(text);
      expect(() => loadConfig({ env: { PRISMIND_HOME: store.home } }), text).toThrow(pattern);
      try {
        loadConfig({ env: { PRISMIND_HOME: store.home } });
      } catch (error) {
        expect((error as { code: string }).code).toBe('CONFIG_INVALID');
      }
    }
    write('');
    expect(() => loadConfig({ env: { PRISMIND_HOME: store.home, PRISMIND_BACKEND: 'sqlite' } })).toThrow(
      /PRISMIND_BACKEND/,
    );
    expect(() => loadConfig({ configFile: path.join(store.home, 'nope.toml'), env: {} })).toThrow(
      /cannot be read/,
    );
  });

  it('tools answer STORE_TOO_NEW for a database from a newer version, and AUTH_REQUIRED for Google without credentials', async () => {
    mkdirSync(store.home, { recursive: true });
    const db = new Database(path.join(store.home, 'prismind.db'));
    // exec, not pragma(): a better-sqlite3 12 Statement collected on Node 24 aborts the process
    // (see src/store/local/database.ts); exec makes no Statement object.
    db.exec('PRAGMA user_version = 99');
    db.close();
    const client = await connect(store);
    try {
      const error = await client.fail('list_projects');
      expect(error.code).toBe('STORE_TOO_NEW');
      expect(error.hint).toMatch(/Upgrade/);
    } finally {
      await client.close();
    }
    const google = await connect(store, { env: { PRISMIND_BACKEND: 'google' } });
    try {
      const error = await google.fail('start_session');
      expect(error.code).toBe('AUTH_REQUIRED');
      expect(error.hint).toContain('prismind-mcp auth login');
    } finally {
      await google.close();
    }
  });
});

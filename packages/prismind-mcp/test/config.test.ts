import { mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  createServer as createHttpServer,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';
import { silentLogger } from '@mcp-workbench/core/engine';
import { loadConfig } from '../src/config/config.js';
import { Embedder } from '../src/search/embedder.js';
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

  it("limits what a store's config can make the server do: which secret it sends, where, and where it writes", async () => {
    const refused: [string, RegExp][] = [
      ['[search]\nembeddings_api_key_env = "DATABASE_PASSWORD"\n', /search\.embeddings_api_key_env/],
      ['[search]\nembeddings_api_key_env = "HOME"\n', /search\.embeddings_api_key_env/],
      ['[search]\nembeddings_url = "file:///etc/passwd"\n', /search\.embeddings_url/],
      ['[log]\nfile = "/tmp/prismind-anywhere.log"\n', /log\.file/],
      ['[log]\nfile = "../outside.log"\n', /log\.file/],
      ['[google]\ntoken_path = "/home/someone/.bashrc"\n', /google\.token_path/],
    ];
    for (const [text, pattern] of refused) {
      write(text);
      expect(() => loadConfig({ env: { PRISMIND_HOME: store.home } }), text).toThrow(pattern);
    }
    write('[search]\nembeddings_api_key_env = "PRISMIND_EMBEDDINGS_API_KEY"\n[log]\nfile = "logs/p.log"\n');
    expect(loadConfig({ env: { PRISMIND_HOME: store.home } }).search.embeddings_api_key_env).toBe(
      'PRISMIND_EMBEDDINGS_API_KEY',
    );
    // Redirects: followed within the endpoint's origin, never to another (the key would go with it).
    const seen: { host: string; auth: string | undefined }[] = [];
    const listen = (handler: (req: IncomingMessage, res: ServerResponse) => void) =>
      new Promise<Server>((resolve) => {
        const server = createHttpServer((req, res) => {
          seen.push({ host: req.headers.host ?? '', auth: req.headers.authorization });
          req.resume();
          req.on('end', () => handler(req, res));
        });
        server.listen(0, '127.0.0.1', () => resolve(server));
      });
    const other = await listen((_req, res) => res.writeHead(200).end('{"data":[]}'));
    const otherUrl = `http://127.0.0.1:${(other.address() as AddressInfo).port}`;
    const endpoint = await listen((req, res) => {
      if (req.url === '/v1/embeddings') res.writeHead(307, { location: '/v2/embeddings' }).end();
      else if (req.url === '/v2/embeddings')
        res
          .writeHead(200, { 'content-type': 'application/json' })
          .end(JSON.stringify({ data: [{ index: 0, embedding: [1, 0] }] }));
      else res.writeHead(302, { location: `${otherUrl}/steal` }).end();
    });
    const base = `http://127.0.0.1:${(endpoint.address() as AddressInfo).port}`;
    try {
      const embedder = (url: string) =>
        new Embedder({ url, model: 'm', apiKey: 'sk-test', timeoutMs: 2000, logger: silentLogger });
      expect((await embedder(base).embed(['罠']))[0]).toEqual(Float32Array.from([1, 0]));
      await expect(embedder(`${base}/elsewhere/embeddings`).embed(['罠'])).rejects.toThrow(/not followed/);
      expect(seen.filter((s) => s.host === new URL(otherUrl).host)).toEqual([]);
    } finally {
      endpoint.close();
      other.close();
    }
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

/**
 * The backend-parameterised test harness: every tool test runs once per backend in BACKENDS, through a
 * real MCP Client over InMemoryTransport. Part 1 has the local store; the Google (local fake API) and
 * PostgreSQL backends add their own entry here and the same tests run against them.
 */
import { mkdtemp, realpath, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { PathPolicy } from '@mcp-workbench/core';
import { callTool, connectInMemory, decodeToonText, type TestClient } from '@mcp-workbench/core/testing';
import { afterEach, beforeEach, expect } from 'vitest';
import { createServer } from '../src/server.js';
import { CLIENT, FakeGoogle } from './google-fake/server.js';
import { postgresBackend } from './pg/postgres-fixture.js';

export interface BackendFixture {
  name: string;
  /** A fresh, empty store: the environment that points a server at it, and how to remove it. */
  create(): Promise<StoreFixture>;
}

export interface StoreFixture {
  /** PRISMIND_HOME and, for server backends, PRISMIND_BACKEND / PRISMIND_DATABASE_URL. */
  env: Record<string, string>;
  /** The local folder of the store (config.toml lives here). */
  home: string;
  /** The fake Google APIs the store talks to (the Google backend only). */
  google?: FakeGoogle;
  cleanup(): Promise<void>;
}

export async function tempDir(prefix = 'prismind-test-'): Promise<string> {
  return realpath(await mkdtemp(path.join(os.tmpdir(), prefix)));
}

export const localBackend: BackendFixture = {
  name: 'local',
  async create() {
    const home = await tempDir();
    return { env: { PRISMIND_HOME: home }, home, cleanup: () => rm(home, { recursive: true, force: true }) };
  },
};

export const GOOGLE_SCOPES = [
  'https://www.googleapis.com/auth/drive.file',
  'https://www.googleapis.com/auth/spreadsheets',
];

/** token.json as `prismind-mcp auth login` leaves it, for the fake's OAuth client. */
export async function writeGoogleToken(
  home: string,
  google: FakeGoogle,
  scopes = GOOGLE_SCOPES,
): Promise<void> {
  await writeFile(
    path.join(home, 'token.json'),
    JSON.stringify({
      type: 'authorized_user',
      client_id: CLIENT.id,
      client_secret: CLIENT.secret,
      refresh_token: google.issueRefreshToken(scopes),
      token_uri: `${google.url}/token`,
      scopes,
    }),
  );
}

/** Google Workspace through the official clients, against a local fake of the REST APIs. */
export const googleBackend: BackendFixture = {
  name: 'google',
  async create() {
    const home = await tempDir();
    const google = await FakeGoogle.start();
    await writeGoogleToken(home, google);
    // What a person made in Drive before setting a project up with their ids.
    google.seed('folder', '1xyz', 'チーム共有');
    google.seed('spreadsheet', '1abc', 'TrapxTrapCpp_Prismind', '1xyz');
    return {
      env: { PRISMIND_HOME: home, PRISMIND_BACKEND: 'google', PRISMIND_GOOGLE_API_URL: google.url },
      home,
      google,
      async cleanup() {
        await google.stop();
        await rm(home, { recursive: true, force: true, maxRetries: 5 });
        // A request the fake did not understand is a bug in the client code.
        expect(google.problems).toEqual([]);
      },
    };
  },
};

export const BACKENDS: BackendFixture[] = [localBackend, googleBackend, postgresBackend];

/** Reads a tool's answer from its text block (JSON, or TOON once core answers text-first in TOON). */
export function decodeText(text: string): Record<string, unknown> {
  try {
    return JSON.parse(text) as Record<string, unknown>;
  } catch {
    return decodeToonText(text) as Record<string, unknown>;
  }
}

export interface ErrorBody {
  code: string;
  message: string;
  hint?: string;
  details?: Record<string, unknown>;
}

export interface Connected extends TestClient {
  /** Calls a tool, asserts success, and returns the decoded answer. */
  call<T = Record<string, unknown>>(
    name: string,
    args?: Record<string, unknown>,
  ): Promise<T & Record<string, unknown>>;
  /** Calls a tool, asserts an error result, and returns its body. */
  fail(name: string, args?: Record<string, unknown>): Promise<ErrorBody>;
}

export interface ConnectOptions {
  configFile?: string;
  now?: () => Date;
  env?: Record<string, string>;
}

/** A server on the store, with a real MCP client connected to it. */
export async function connect(store: StoreFixture, options: ConnectOptions = {}): Promise<Connected> {
  const paths = await PathPolicy.create({ roots: [store.home] });
  const server = await createServer({
    paths,
    env: { ...store.env, ...options.env },
    ...(options.configFile ? { configFile: options.configFile } : {}),
    ...(options.now ? { now: options.now } : {}),
  });
  const connection = await connectInMemory(server);
  return {
    ...connection,
    async call(name, args = {}) {
      const result = await callTool(connection.client, name, args);
      expect(result.isError, `${name} failed: ${result.text}`).toBe(false);
      return decodeText(result.text) as never;
    },
    async fail(name, args = {}) {
      const result = await callTool(connection.client, name, args);
      expect(result.isError, `${name} should fail but answered: ${result.text}`).toBe(true);
      return (decodeText(result.text) as { error: ErrorBody }).error;
    },
  };
}

/** A store with one project set up and current, ready for session/document/progress tests. */
export async function withProject(store: StoreFixture, options: ConnectOptions = {}): Promise<Connected> {
  const client = await connect(store, options);
  await client.call('setup_project', {
    project: 'trapxtrap',
    name: 'TrapxTrapCpp',
    description: '1v1トラップアクションゲーム',
  });
  return client;
}

/** A test's local store and the client it uses (closed after the test). */
export interface LocalSession<C extends Connected | undefined> {
  store: StoreFixture;
  client: C;
}

/**
 * A fresh local store for each test of the file, removed after it; with `project: true`, a client
 * already connected to its project. A test that connects by itself sets `client`, which is closed too.
 */
export function useLocalStore(options: { project: true }): LocalSession<Connected>;
export function useLocalStore(options?: { project?: false }): LocalSession<Connected | undefined>;
export function useLocalStore(options: { project?: boolean } = {}): LocalSession<Connected | undefined> {
  const session = {} as LocalSession<Connected | undefined>;
  beforeEach(async () => {
    session.store = await localBackend.create();
    session.client = options.project ? await withProject(session.store) : undefined;
  });
  afterEach(async () => {
    await session.client?.close();
    session.client = undefined;
    await session.store.cleanup();
  });
  return session;
}

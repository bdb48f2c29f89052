/**
 * Without PRISMIND_TEST_DATABASE_URL, starts one PGlite on loopback for the whole run (see pglite.ts), so
 * the PostgreSQL backend's tests run the same `pg` code on any machine with Node alone; each test gets a
 * schema of its own in it. With a real server (CI's throwaway cluster) nothing starts here: the tests use
 * the server, and the one test of PGlite itself starts its own.
 */
import type { TestProject } from 'vitest/node';
import { startPglite } from './pglite.js';

declare module 'vitest' {
  export interface ProvidedContext {
    pgliteUrl: string;
  }
}

export default async function setup(project: TestProject) {
  if (process.env.PRISMIND_TEST_DATABASE_URL?.trim()) {
    project.provide('pgliteUrl', '');
    return;
  }
  const pglite = await startPglite();
  project.provide('pgliteUrl', pglite.url);
  return pglite.stop;
}

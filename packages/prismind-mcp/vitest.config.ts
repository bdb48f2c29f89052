import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // One PGlite on loopback for the PostgreSQL backend's tests (see test/pg/global-setup.ts).
    globalSetup: ['test/pg/global-setup.ts'],
    // Spawned servers and CLIs start slowly on a loaded 2-core CI machine.
    testTimeout: 120_000,
    reporters: ['default', 'json'],
    outputFile: { json: '.reports/vitest.json' },
  },
});

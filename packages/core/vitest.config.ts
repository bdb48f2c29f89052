import os from 'node:os';
import path from 'node:path';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['../../scripts/vitest-scratch-tmpdir.mjs'],
    // Test files share their worker's module cache: loading the server's modules once per worker, not
    // once per file, saves about a third of the suite's time on two cores. Files keep no global state
    // between them (each makes its own servers, folders and clients), and CI runs them this way twice.
    isolate: false,
    testTimeout: 60_000, // spawned servers can take many seconds to start on a busy 2-core CI machine
    // Journals of pending atomic writes go to a scratch folder, not the user's state folder.
    env: { MCP_WORKBENCH_STATE_DIR: path.join(os.tmpdir(), 'mcp-workbench-test-state') },
    reporters: ['default', 'json'],
    outputFile: { json: '.reports/vitest.json' },
    coverage: {
      provider: 'v8',
      include: ['src/**/*.ts'],
      // Runs the MCP Inspector, a dev dependency of the servers (their suites exercise it), not of core.
      exclude: ['src/testing/inspector.ts'],
      reporter: ['text-summary', 'json-summary'],
      thresholds: { lines: 90 },
    },
  },
});

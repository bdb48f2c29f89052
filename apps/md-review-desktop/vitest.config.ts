import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['../../scripts/vitest-scratch-tmpdir.mjs'],
    reporters: ['default', 'json'],
    outputFile: { json: '.reports/vitest.json' },
  },
});

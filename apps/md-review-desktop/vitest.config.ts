import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/scratch-tmpdir.ts'],
    reporters: ['default', 'json'],
    outputFile: { json: '.reports/vitest.json' },
  },
});

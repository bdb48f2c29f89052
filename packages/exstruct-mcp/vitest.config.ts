import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    // Closing a workspace checks every workbook it wrote with openpyxl, in one process per workspace.
    hookTimeout: 120_000,
    reporters: ['default', 'json'],
    outputFile: { json: '.reports/vitest.json' },
    coverage: {
      provider: 'v8',
      include: ['src/**/*.ts'],
      reporter: ['text-summary', 'json-summary'],
    },
  },
});

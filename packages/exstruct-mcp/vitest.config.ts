import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    // At the end of each file, every workbook its workspaces wrote is loaded by openpyxl in one process.
    setupFiles: ['test/setup.ts'],
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

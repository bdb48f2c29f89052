import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    reporters: ['default', 'json'],
    outputFile: { json: '.reports/vitest.json' },
    coverage: {
      provider: 'v8',
      // Spec 003 asks for ≥ 90 % coverage of the search code; `pnpm test` enforces it.
      include: ['src/search/**/*.ts', 'src/rg/**/*.ts', 'src/tools/search-content.ts'],
      reporter: ['text', 'json-summary'],
      reportsDirectory: '.reports/coverage',
      thresholds: { lines: 90, statements: 90, functions: 90, branches: 90 },
    },
  },
});

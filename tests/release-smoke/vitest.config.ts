import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // npm installs the packed tarballs (and their dependencies from the registry or npm's cache).
    testTimeout: 240_000,
    hookTimeout: 240_000,
    reporters: ['default', 'json'],
    outputFile: { json: '.reports/vitest.json' },
  },
});

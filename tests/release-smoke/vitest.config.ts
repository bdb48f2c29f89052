import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Packs every published package and installs the tarballs once for all test files.
    globalSetup: ['test/global-setup.ts'],
    // npm installs the packed tarballs (and their dependencies from the registry or npm's cache); the
    // bundle test packs four bundles.
    testTimeout: 240_000,
    hookTimeout: 600_000,
    reporters: ['default', 'json'],
    outputFile: { json: '.reports/vitest.json' },
  },
});

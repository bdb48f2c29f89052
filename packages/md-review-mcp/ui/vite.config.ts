import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

// The review page: one static bundle in dist/ui, served by the server's loopback web server (and shown
// by the desktop app). No inline scripts or styles, so the page runs under a strict CSP.
export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: '/',
  publicDir: false,
  resolve: {
    // mermaid's ELK layout engine (1.5 MB) is not shipped; see src/stubs/elk.ts.
    alias: { 'elkjs/lib/elk.bundled.js': fileURLToPath(new URL('./src/stubs/elk.ts', import.meta.url)) },
  },
  build: {
    outDir: fileURLToPath(new URL('../dist/ui', import.meta.url)),
    emptyOutDir: true,
    assetsInlineLimit: 0,
    modulePreload: { polyfill: false },
    target: 'es2022',
    sourcemap: false,
    reportCompressedSize: false,
    chunkSizeWarningLimit: 2000,
  },
});

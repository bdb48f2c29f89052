import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

// The review page: one static bundle in dist/ui, served by the server's loopback web server (and shown
// by the desktop app). No inline scripts or styles, so the page runs under a strict CSP.
export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: '/',
  publicDir: false,
  plugins: [
    {
      // V8 compiles the page's entry eagerly, on a background thread while it streams in, instead of
      // function by function on the main thread as the first render calls them (a fresh window has no
      // code cache): https://v8.dev/blog/explicit-compile-hints. Added after minification, which drops comments.
      name: 'compile-hints',
      generateBundle(_options, bundle) {
        for (const chunk of Object.values(bundle))
          if (chunk.type === 'chunk' && chunk.isEntry)
            chunk.code = `//# allFunctionsCalledOnLoad\n${chunk.code}`;
      },
    },
  ],
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

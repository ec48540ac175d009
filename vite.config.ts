import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

// The renderer (React) builds to dist/renderer: served by the web shell, loaded by the app.
// Paths are anchored to this file, so a build started from any folder finds the renderer.
export default defineConfig({
  root: fileURLToPath(new URL('./renderer', import.meta.url)),
  base: './',
  build: {
    outDir: fileURLToPath(new URL('./dist/renderer', import.meta.url)),
    emptyOutDir: true,
    target: 'es2022',
    sourcemap: true,
  },
  oxc: { jsx: { runtime: 'automatic', importSource: 'react' } },
});

import { defineConfig } from 'vite';

// The renderer (React) builds to dist/renderer: served by the web shell, loaded by the app.
export default defineConfig({
  root: 'renderer',
  base: './',
  build: { outDir: '../dist/renderer', emptyOutDir: true, target: 'es2022', sourcemap: true },
  oxc: { jsx: { runtime: 'automatic', importSource: 'react' } },
});

/**
 * The dashboard build: Preact through Vite's own JSX transform (Oxc in Vite 8; no Babel plugin), served by the server at /ui.
 * `npm run build:ui` writes renderer/dist. No inline script or style ends up in the page (the CSP forbids it).
 */
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: '/ui/',
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    target: 'es2022',
    // Keep every script and style a file of its own: the CSP allows 'self' only.
    assetsInlineLimit: 0,
    modulePreload: { polyfill: false },
  },
});

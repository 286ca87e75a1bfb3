import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

// The viewer: `npm run build:viewer` writes a static site to viewer-dist/ (served by
// `corskin view`); the bundled arm comes along as arm.glb.
export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: './',
  publicDir: fileURLToPath(new URL('../assets', import.meta.url)),
  build: {
    outDir: fileURLToPath(new URL('../viewer-dist', import.meta.url)),
    emptyOutDir: true,
    chunkSizeWarningLimit: 2000,
  },
  worker: { format: 'es' },
});

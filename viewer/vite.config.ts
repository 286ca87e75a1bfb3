import { fileURLToPath } from 'node:url';
import { createLogger, defineConfig } from 'vite';

/**
 * Vite's logger without the "node:fs / node:path has been externalized" notices: glTF-Transform's
 * NodeIO imports them, and the viewer uses its WebIO only, so they are never called here.
 */
function quietLogger() {
  const logger = createLogger('warn');
  const warn = logger.warn.bind(logger);
  logger.warn = (message, options) => {
    if (!/node:(fs|path)" has been externalized for browser compatibility/.test(message)) warn(message, options);
  };
  return logger;
}

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
  customLogger: quietLogger(),
});

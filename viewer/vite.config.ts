import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { createLogger, defineConfig, type Plugin } from 'vite';

/** three.js's Draco decoder (JS wrapper + WebAssembly), served next to the viewer as draco/. */
function dracoDecoder(): Plugin {
  const dir = fileURLToPath(new URL('../node_modules/three/examples/jsm/libs/draco/gltf/', import.meta.url));
  return {
    name: 'corskin-draco-decoder',
    generateBundle() {
      for (const file of ['draco_wasm_wrapper.js', 'draco_decoder.wasm', 'draco_decoder.js'])
        this.emitFile({ type: 'asset', fileName: `draco/${file}`, source: readFileSync(dir + file) });
    },
  };
}

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
  plugins: [dracoDecoder()],
  customLogger: quietLogger(),
});

#!/usr/bin/env node
// Entry point of the `corskin` command: runs the compiled CLI (built by `npm run build`,
// which `npm ci`/`npm install` run through the `prepare` script). The CLI's own libraries are
// optional dependencies of the corskin package (a library user's install stays light): say which
// to install when they are missing.
import { createRequire } from 'node:module';
import { fileURLToPath, URL } from 'node:url';

// A signal during start-up (nothing begun, nothing to clean): exit as the command would.
for (const [signal, code] of [
  ['SIGINT', 130],
  ['SIGTERM', 143],
  ['SIGHUP', 129],
])
  process.once(signal, () => process.exit(code));

const require = createRequire(import.meta.url);
const missing = ['commander', 'cli-progress'].filter((name) => {
  try {
    require.resolve(name);
    return false;
  } catch {
    return true;
  }
});
if (missing.length) {
  console.error(
    `corskin: the command-line tool needs ${missing.join(' and ')} (optional dependencies of the library).\n` +
      `Install the CLI with: npm install corskin commander cli-progress @gltf-transform/functions chart.js playwright-core gltf-validator`,
  );
  process.exit(1);
}

// A checkout that is not built (or is being rebuilt: `npm run build` empties dist/ first).
const compiled = new URL('../dist/cli/process.js', import.meta.url);
const { runProcess } = await import(compiled.href).catch((e) => {
  if (e?.code !== 'ERR_MODULE_NOT_FOUND' || !String(e.message).includes(fileURLToPath(compiled))) throw e;
  console.error(
    `corskin: the compiled CLI is missing (${fileURLToPath(compiled)}): run npm run build in ${fileURLToPath(new URL('..', import.meta.url))} (or wait for a build under way to finish)`,
  );
  process.exit(1);
});

// The command runs on a worker thread; this thread answers SIGINT/SIGTERM/SIGHUP (src/cli/process.ts).
runProcess(process.argv).then((code) => {
  process.exitCode = code;
});

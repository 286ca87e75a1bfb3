#!/usr/bin/env node
// Entry point of the `corskin` command: runs the compiled CLI (built by `npm run build`,
// which `npm ci`/`npm install` run through the `prepare` script). The CLI's own libraries are
// optional dependencies of the corskin package (a library user's install stays light): say which
// to install when they are missing.
import { createRequire } from 'node:module';

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

const { runProcess } = await import('../dist/cli/process.js');

// The command runs on a worker thread; this thread answers SIGINT/SIGTERM/SIGHUP (src/cli/process.ts).
runProcess(process.argv).then((code) => {
  process.exitCode = code;
});

#!/usr/bin/env node
// Entry point of the `corskin` command: runs the compiled CLI (built by `npm run build`,
// which `npm ci`/`npm install` run through the `prepare` script).
import { installSignalCleanup, main } from '../dist/cli/main.js';

// `corskin info x.glb | head` closes the pipe early: not an error.
process.stdout.on('error', (e) => {
  if (e.code === 'EPIPE') process.exit(0);
  throw e;
});

installSignalCleanup();
main(process.argv).then((code) => {
  process.exitCode = code;
});

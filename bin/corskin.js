#!/usr/bin/env node
// Entry point of the `corskin` command: runs the compiled CLI (built by `npm run build`,
// which `npm ci`/`npm install` run through the `prepare` script).
import { main } from '../dist/cli/main.js';

main(process.argv).then((code) => {
  process.exitCode = code;
});

/**
 * The package version, read from package.json (one level above both `src/` and `dist/`).
 * @module
 */
import { readFileSync } from 'node:fs';

/** corskin's version string, as recorded in the files it writes. */
export const VERSION: string = (
  JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }
).version;

// Builds the package only when a source is newer than the last build (`dist/.build-stamp`, written
// by `npm run build`), so `npm test`, `npm run test:e2e` and `npm run bench` share one build and
// never run stale compiled code (the worker-thread pool runs dist/cor/worker.js).
import { execSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, URL } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const stamp = join(root, 'dist', '.build-stamp');
const GENERATED = new Set(['kernels-binary.ts', 'kernels-shared-binary.ts', 'web-worker-source.ts']);

/** Newest modification time under `dir` (generated files excluded). */
function newest(dir) {
  let t = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, entry.name);
    if (entry.isDirectory()) t = Math.max(t, newest(p));
    else if (!GENERATED.has(entry.name)) t = Math.max(t, statSync(p).mtimeMs);
  }
  return t;
}

const sources = Math.max(
  ...['src', 'asm', 'viewer'].map((d) => newest(join(root, d))),
  ...['package.json', 'tsconfig.json', 'tsconfig.build.json'].map((f) => statSync(join(root, f)).mtimeMs),
);
if (!existsSync(stamp) || statSync(stamp).mtimeMs < sources) {
  console.log('corskin: sources changed since the last build: npm run build');
  execSync('npm run build', { cwd: root, stdio: 'inherit' });
}

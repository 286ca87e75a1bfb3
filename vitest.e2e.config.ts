import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

// End-to-end tests in Debian's headless Chromium: the viewer and the GPU path (`npm run test:e2e`).
export default defineConfig({
  test: {
    include: ['test-e2e/**/*.test.ts'],
    testTimeout: 180_000,
    hookTimeout: 180_000,
    // Two files at a time, as the unit suite: each file serves its pages on a port of its own and
    // writes into a folder of its own; much of a file's time is a browser or a CLI process waiting
    // on one core.
    maxWorkers: Math.max(2, availableParallelism() - 1),
  },
});

import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 120_000,
    hookTimeout: 120_000,
    // Vitest's default is one worker fewer than the cores: on a 2-core machine, one file at a
    // time. The unit files are independent (each writes into its own scratch folder) and mostly
    // single-threaded: two at a time nearly halve the suite's wall time there.
    maxWorkers: Math.max(2, availableParallelism() - 1),
  },
});

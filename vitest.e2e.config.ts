import { defineConfig } from 'vitest/config';

// End-to-end tests in Debian's headless Chromium: the viewer and the GPU path (`npm run test:e2e`).
export default defineConfig({
  test: {
    include: ['test-e2e/**/*.test.ts'],
    testTimeout: 540_000,
    hookTimeout: 540_000,
    // One file at a time: two at a time on this 2-core machine took longer (22.7 min against 19.7;
    // the browsers and CLI processes are CPU-bound).
    fileParallelism: false,
  },
});

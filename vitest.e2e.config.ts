import { defineConfig } from 'vitest/config';

// End-to-end tests in Debian's headless Chromium: the viewer and the GPU path (`npm run test:e2e`).
export default defineConfig({
  test: {
    include: ['test-e2e/**/*.test.ts'],
    testTimeout: 180_000,
    hookTimeout: 180_000,
    fileParallelism: false,
  },
});

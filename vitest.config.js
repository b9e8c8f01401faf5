import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['tests/js/**/*.test.js'],
    // The differential suite replays thousands of calls through a brute-force oracle.
    testTimeout: 120_000,
  },
});

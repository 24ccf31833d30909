import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Child processes, not worker threads: the native uWS addon wants its own process.
    pool: 'forks',
    globalSetup: ['test/helpers/globalSetup.ts', 'test/e2e/buildWeb.ts'],
    testTimeout: 20_000,
    hookTimeout: 30_000,
    reporters: ['default'],
  },
});

import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  // The dashboard's modules import the hub's client by this name (web/vite.config.ts has the same).
  resolve: { alias: { '@hub/client': fileURLToPath(new URL('./src/client/index.ts', import.meta.url)) } },
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

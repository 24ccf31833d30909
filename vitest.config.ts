import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  // The dashboard's modules import the hub's client by this name (web/vite.config.ts has the same).
  resolve: { alias: { '@hub/client': fileURLToPath(new URL('./src/client/index.ts', import.meta.url)) } },
  test: {
    // Child processes, not worker threads: the native uWS addon wants its own process.
    pool: 'forks',
    testTimeout: 20_000,
    hookTimeout: 30_000,
    reporters: ['default'],
    // Three projects, each runnable alone (`npm run test:unit` …); `npm test` runs them all. Each takes the
    // settings above (`extends: true`) and only the global setup it needs: unit tests start no hub and
    // read no database, so they need neither the PostgreSQL check nor the dashboard's build.
    projects: [
      { extends: true, test: { name: 'unit', include: ['test/unit/**/*.test.ts'] } },
      {
        extends: true,
        test: { name: 'integration', include: ['test/integration/**/*.test.ts'], globalSetup: ['test/helpers/globalSetup.ts'] },
      },
      {
        extends: true,
        test: { name: 'e2e', include: ['test/e2e/**/*.test.ts'], globalSetup: ['test/helpers/globalSetup.ts', 'test/helpers/e2e/buildWeb.ts'] },
      },
    ],
  },
});

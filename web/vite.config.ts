// The dashboard's build: React through Vite, written to dist/web, which the hub serves at `/`.
// `npm run dev:web` serves it with hot reload and forwards /api (HTTP and WebSocket) to a hub on :8080.
import react from '@vitejs/plugin-react';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

const root = fileURLToPath(new URL('.', import.meta.url));
const hub = process.env.HUB_URL ?? 'http://127.0.0.1:8080';

export default defineConfig({
  root,
  plugins: [react()],
  // The hub's own typed client, straight from its source (browser-safe by design).
  resolve: { alias: { '@hub/client': fileURLToPath(new URL('../src/client/index.ts', import.meta.url)) } },
  build: {
    outDir: fileURLToPath(new URL('../dist/web', import.meta.url)),
    emptyOutDir: true,
    target: 'es2022',
    sourcemap: true,
    // Read by scripts/web-size.mjs to weigh the first load (the hub does not serve dot-folders).
    manifest: true,
    // The first load is budgeted (300 KB gzipped); admin pages come as their own chunks.
    chunkSizeWarningLimit: 400,
    rollupOptions: {
      // zod's sources carry comments Rollup cannot place; harmless, and not ours to fix.
      onwarn(warning, warn) {
        if (warning.code === 'INVALID_ANNOTATION' && warning.id?.includes('node_modules')) return;
        warn(warning);
      },
    },
  },
  server: {
    port: 5173,
    proxy: { '/api': { target: hub, ws: true, changeOrigin: false } },
  },
});

#!/usr/bin/env node
// Builds the dashboard (dist/web) when it is missing or older than its sources: the dashboard in
// web/, and the hub's client and protocol it bundles. `npm start` and the end-to-end tests run it,
// so a fresh clone serves the dashboard without a separate build step. Usable as a module too.
import { existsSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const OUT = join(ROOT, 'dist/web/index.html');
const SOURCES = ['web', 'src/client', 'src/protocol'].map((p) => join(ROOT, p));

function newest(path) {
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  let latest = stat.mtimeMs;
  for (const entry of readdirSync(path)) if (entry !== 'node_modules') latest = Math.max(latest, newest(join(path, entry)));
  return latest;
}

export async function ensureWeb() {
  const built = existsSync(OUT) ? statSync(OUT).mtimeMs : 0;
  if (built >= Math.max(...SOURCES.map(newest))) return false;
  process.stderr.write(built ? 'dashboard sources changed: rebuilding dist/web…\n' : 'building the dashboard into dist/web…\n');
  const started = Date.now();
  let build;
  try {
    ({ build } = await import('vite'));
  } catch {
    // A production install (--omit=dev) has no Vite: the hub still starts, serving what is built.
    process.stderr.write('vite is not installed (an install without dev dependencies?): not building the dashboard; run "npm run build" where it is\n');
    return false;
  }
  // A test runner sets NODE_ENV=test, which would bundle React's development build: build as
  // `npm run build` does, then put the environment back.
  const nodeEnv = process.env.NODE_ENV;
  process.env.NODE_ENV = 'production';
  try {
    await build({ configFile: join(ROOT, 'web/vite.config.ts'), mode: 'production', logLevel: 'warn' });
  } finally {
    if (nodeEnv === undefined) delete process.env.NODE_ENV;
    else process.env.NODE_ENV = nodeEnv;
  }
  process.stderr.write(`dashboard built in ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
  return true;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  ensureWeb().catch((err) => {
    process.stderr.write(`could not build the dashboard: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  });
}

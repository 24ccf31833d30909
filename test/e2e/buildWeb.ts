// Vitest global setup: the end-to-end tests drive the built dashboard, so build it when its build is
// missing or older than its sources (the dashboard, and the client and protocol it bundles).
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';

const ROOT = resolve(import.meta.dirname, '../..');
const OUT = join(ROOT, 'dist/web/index.html');
const SOURCES = ['web', 'src/client', 'src/protocol'].map((p) => join(ROOT, p));

function newest(path: string): number {
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  let latest = stat.mtimeMs;
  for (const entry of readdirSync(path)) if (entry !== 'node_modules') latest = Math.max(latest, newest(join(path, entry)));
  return latest;
}

export default async function setup(): Promise<void> {
  const built = existsSync(OUT) ? statSync(OUT).mtimeMs : 0;
  if (built >= Math.max(...SOURCES.map(newest))) return;
  process.stderr.write('building the dashboard for the end-to-end tests (dist/web)…\n');
  const { build } = await import('vite');
  await build({ configFile: join(ROOT, 'web/vite.config.ts'), logLevel: 'warn' });
}

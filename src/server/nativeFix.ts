// Before `agent-hub start` loads the WebSocket server: the same install-time fix `npm start` runs first
// (scripts/fix-uws-glibc.mjs, shipped in the server package as dist/fix-uws-glibc.mjs). npm 11 runs a
// dependency's install script only once the project approves it, so the start checks again; when the
// binary already loads (patched, or glibc 2.38 and later) it changes nothing.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** The script beside the compiled hub in the package (dist/src/server → dist/), or in a clone's scripts/. */
export function nativeFixScript(): string | undefined {
  return ['../../fix-uws-glibc.mjs', '../../scripts/fix-uws-glibc.mjs', '../../../scripts/fix-uws-glibc.mjs']
    .map((rel) => fileURLToPath(new URL(rel, import.meta.url)))
    .find((path) => existsSync(path));
}

/** Runs the fix with this Node; false when it failed (it printed why: no binary for this Node, or the patch did not help). */
export function fixNativeServer(): boolean {
  const script = nativeFixScript();
  if (!script) return true;
  const result = spawnSync(process.execPath, [script], { stdio: ['ignore', 'inherit', 'inherit'] });
  return result.status === 0;
}

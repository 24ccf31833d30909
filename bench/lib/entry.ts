// Which hub the benchmark measures and the chaos run attacks: the compiled dist/src/main.js when it
// is built and newer than every source file (what production runs), else src/main.ts through tsx
// (whose transform names every function it makes, which costs time and memory on hot paths).
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

function newestMtime(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(path) : statSync(path).mtimeMs);
  }
  return newest;
}

export function hubEntry(root: string): { script: string; why: string } {
  const built = join(root, 'dist', 'src', 'main.js');
  if (!existsSync(built)) return { script: 'src/main.ts', why: 'not built: src/main.ts through tsx' };
  if (statSync(built).mtimeMs < newestMtime(join(root, 'src'))) return { script: 'src/main.ts', why: 'dist/ is older than src/: src/main.ts through tsx' };
  return { script: 'dist/src/main.js', why: 'the build in dist/ (fresh)' };
}

// The package's build (run by `npm pack`): src/testing compiled by tsc with declarations, then only the
// kit's own modules kept in dist/. Its imports of the hub become imports of @agent-hub/server (the
// compiled hub, with its declarations) and of the client of @agent-hub/client: one copy of each.
import { execFileSync } from 'node:child_process';
import { cpSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '../..');
const build = join(here, 'build');
const dist = join(here, 'dist');

rmSync(build, { recursive: true, force: true });
rmSync(dist, { recursive: true, force: true });
const tsc = createRequire(join(root, 'package.json')).resolve('typescript/bin/tsc');
execFileSync(process.execPath, [tsc, '-p', join(here, 'tsconfig.json')], { stdio: 'inherit' });
cpSync(join(build, 'testing'), dist, { recursive: true });
rmSync(build, { recursive: true, force: true });

/** `../client/index.js` → the client package; `../hub.js` → `@agent-hub/server/dist/src/hub.js`. */
function rewrite(specifier, file) {
  if (!specifier.startsWith('../')) return specifier;
  const inSrc = specifier.slice(3);
  if (inSrc.startsWith('client/')) {
    if (inSrc !== 'client/index.js') throw new Error(`${file} imports ${specifier}: import the client's public entry (../client/index.js) only`);
    return '@agent-hub/client';
  }
  return `@agent-hub/server/dist/src/${inSrc}`;
}

const outside = [];
for (const file of readdirSync(dist, { recursive: true }).map(String)) {
  if (!/\.(?:js|d\.ts)$/.test(file)) continue;
  const path = join(dist, file);
  const source = readFileSync(path, 'utf8');
  const next = source.replace(/(\bfrom\s+|\bimport\s*\(\s*|\bimport\s+)(['"])([^'"]+)\2/g, (_match, head, quote, specifier) => {
    const target = rewrite(specifier, file);
    if (target !== specifier) outside.push(target);
    return `${head}${quote}${target}${quote}`;
  });
  writeFileSync(path, next);
}
// Each compiled hub module the kit imports must exist in the server package's build.
const server = join(root, 'packages/server/dist/src');
for (const target of new Set(outside.filter((t) => t.startsWith('@agent-hub/server/')))) {
  const path = join(server, target.slice('@agent-hub/server/dist/src/'.length));
  try {
    readFileSync(path);
  } catch {
    throw new Error(`the kit imports ${target}, which the server package's build does not have (build it first: npm run build:server-package)`);
  }
}

// The package's build (run by `npm pack`): the hub compiled with tsc, the dashboard (built by the
// hub's scripts/ensure-web.mjs when missing or stale, then copied), the SQL migrations, the
// uWebSockets.js install fix, and ultimate-express vendored; everything lands in dist/ of this folder.
//
// Why vendored: ultimate-express depends on uWebSockets.js from GitHub (a git URL), which the hub's
// root package.json overrides with the npm release; an override does not reach a package's users, so
// installing the server would clone uWebSockets.js from GitHub (or fail without it). The copy in
// dist/vendor resolves uWebSockets.js to the npm release this package depends on, and its other
// dependencies are this package's (checked here, so an upgrade cannot drift).
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '../..');
const dist = join(here, 'dist');

rmSync(dist, { recursive: true, force: true });
const tsc = createRequire(join(root, 'package.json')).resolve('typescript/bin/tsc');
execFileSync(process.execPath, [tsc, '-p', join(here, 'tsconfig.json')], { stdio: 'inherit' });

const { ensureWeb } = await import(new URL('../../scripts/ensure-web.mjs', import.meta.url).href);
await ensureWeb();
cpSync(join(root, 'dist/web'), join(dist, 'web'), { recursive: true });

mkdirSync(join(dist, 'migrations'));
for (const file of readdirSync(join(root, 'migrations')).filter((f) => f.endsWith('.sql')))
  cpSync(join(root, 'migrations', file), join(dist, 'migrations', file));
cpSync(join(root, 'scripts/fix-uws-glibc.mjs'), join(dist, 'fix-uws-glibc.mjs'));

const express = join(root, 'node_modules/ultimate-express');
const expressManifest = JSON.parse(readFileSync(join(express, 'package.json'), 'utf8'));
const ours = JSON.parse(readFileSync(join(here, 'package.json'), 'utf8')).dependencies;
for (const [name, range] of Object.entries(expressManifest.dependencies)) {
  if (name === 'uWebSockets.js' || name.startsWith('@types/')) continue;
  if (ours[name] !== range) throw new Error(`ultimate-express needs ${name}@${range}: set it in packages/server/package.json (it has ${ours[name] ?? 'none'})`);
}
const vendored = join(dist, 'vendor/ultimate-express');
// Its package.json comes too: it makes Node load the copy as CommonJS (this package is "type": "module").
for (const entry of ['src', 'LICENSE', 'EXPRESS_LICENSE', 'package.json']) cpSync(join(express, entry), join(vendored, entry), { recursive: true });
// The compiled hub imports it by name in one module (http/app.js); point that import at the copy.
const app = join(dist, 'src/http/app.js');
const importLine = "from 'ultimate-express';";
const source = readFileSync(app, 'utf8');
if (source.split(importLine).length !== 2) throw new Error(`expected one ${importLine} in ${app}`);
writeFileSync(app, source.replace(importLine, "from '../../vendor/ultimate-express/src/index.js';"));
const stray = readdirSync(join(dist, 'src'), { recursive: true })
  .filter((file) => String(file).endsWith('.js'))
  .filter((file) => /\bfrom 'ultimate-express'|require\('ultimate-express'\)/.test(readFileSync(join(dist, 'src', String(file)), 'utf8')));
if (stray.length > 0) throw new Error(`these compiled modules import ultimate-express by name: ${stray.join(', ')}`);

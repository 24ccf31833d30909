// The package's install step: the uWebSockets.js fix for glibc older than 2.38 (the hub's
// scripts/fix-uws-glibc.mjs, copied into dist/ by the build). In the hub's own folder, before a build,
// there is no copy and nothing to do: the hub's own postinstall runs the script.
import { existsSync } from 'node:fs';

const fix = new URL('../dist/fix-uws-glibc.mjs', import.meta.url);
if (existsSync(fix)) await import(fix.href);

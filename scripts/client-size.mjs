#!/usr/bin/env node
// Weighs @agent-hub/client in a browser bundle: esbuild (minified, ESM, platform browser) of an app
// that imports HubClient, and of one that keeps every export; gzipped (level 9), with the largest
// inputs. Bundles the source (src/client/index.ts), so no build is needed first. Exits 1 over the
// budget of 60 KB gzipped. (It was 114 KB while the protocol imported `{ z }`: that keeps zod's whole
// namespace, its 64 locales and JSON Schema converters included; `import * as z` lets bundlers drop them.)
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';

const entries = {
  'HubClient only': "import { HubClient } from './src/client/index.ts'; globalThis.hub = HubClient;",
  'every export': "import * as client from './src/client/index.ts'; globalThis.client = client;",
};

const BUDGET_KB = 60;
let over = false;
const kb = (bytes) => `${(bytes / 1024).toFixed(1)} KB`;
for (const [name, contents] of Object.entries(entries)) {
  const result = await build({
    stdin: { contents, resolveDir: process.cwd(), loader: 'ts' },
    bundle: true,
    minify: true,
    format: 'esm',
    platform: 'browser',
    write: false,
    metafile: true,
    logLevel: 'silent',
  });
  const code = result.outputFiles[0].contents;
  const output = Object.values(result.metafile.outputs)[0];
  const byPackage = new Map();
  for (const [path, { bytesInOutput }] of Object.entries(output.inputs)) {
    const key = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(path)?.[1] ?? path.split('/').slice(0, 2).join('/');
    byPackage.set(key, (byPackage.get(key) ?? 0) + bytesInOutput);
  }
  const top = [...byPackage].sort((a, b) => b[1] - a[1]).slice(0, 5);
  const gzipped = gzipSync(code, { level: 9 }).length;
  over ||= gzipped > BUDGET_KB * 1024;
  console.log(`${name}: ${kb(code.length)} minified, ${kb(gzipped)} gzipped (budget ${BUDGET_KB} KB)`);
  console.log(`  largest (minified): ${top.map(([k, v]) => `${k} ${kb(v)}`).join(', ')}`);
}
if (over) {
  console.error(`over the budget of ${BUDGET_KB} KB gzipped`);
  process.exit(1);
}

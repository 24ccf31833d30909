#!/usr/bin/env node
// Weighs @agent-hub/client in a browser bundle: esbuild (minified, ESM, platform browser) of an app
// that imports HubClient, and of one that keeps every export; gzipped (level 9), with the largest
// inputs. Bundles the source (src/client/index.ts), so no build is needed first.
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';

const entries = {
  'HubClient only': "import { HubClient } from './src/client/index.ts'; globalThis.hub = HubClient;",
  'every export': "import * as client from './src/client/index.ts'; globalThis.client = client;",
};

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
  console.log(`${name}: ${kb(code.length)} minified, ${kb(gzipSync(code, { level: 9 }).length)} gzipped`);
  console.log(`  largest (minified): ${top.map(([k, v]) => `${k} ${kb(v)}`).join(', ')}`);
}

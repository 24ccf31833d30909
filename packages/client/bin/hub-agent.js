#!/usr/bin/env node
// The `hub-agent` command: the compiled CLI (built on `npm pack`, or by `npm run build:client` in the hub's folder).
import { existsSync } from 'node:fs';

const main = new URL('../dist/cli/main.js', import.meta.url);
if (!existsSync(main)) {
  // In the hub's folder before a build: say what to run instead of a stack trace.
  process.stderr.write("hub-agent: not built yet: run `npm run build:client` in the hub's folder (or run `npx tsx src/cli/main.ts`)\n");
  process.exit(1);
}
await import(main.href);

#!/usr/bin/env node
// The `agent-hub` command: the compiled hub's command line (built on `npm pack`, or by
// `npm run build:server-package` in the hub's folder).
import { existsSync } from 'node:fs';

const cli = new URL('../dist/src/server/cli.js', import.meta.url);
if (!existsSync(cli)) {
  // In the hub's folder before a build: say what to run instead of a stack trace.
  process.stderr.write("agent-hub: not built yet: run `npm run build:server-package` in the hub's folder (or `npm start` there)\n");
  process.exit(1);
}
const { main } = await import(cli.href);
await main(process.argv.slice(2));

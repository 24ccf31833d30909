#!/usr/bin/env node
// The `hub-agent` command: the compiled CLI (built on `npm pack`, or by `npm run build` in the hub's folder).
import '../dist/cli/main.js';

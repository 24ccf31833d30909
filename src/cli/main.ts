#!/usr/bin/env node
// `hub-agent`: the command line of the hub's client (options.ts parses it; live.ts and admin.ts run
// it). Data goes to stdout, progress to stderr. Exit codes: 0 done, 1 the hub refused or could not
// be reached (one line says which and why), 2 a usage mistake.
import { readFileSync } from 'node:fs';
import { config as loadDotenv } from 'dotenv';
import { HubClient } from '../client/index.js';
import { errorMessage } from '../examples/agent.js';
import { runAdmin, type Output } from './admin.js';
import { runAgentCommand, sendCommand, tailCommand } from './live.js';
import { runMcpBridge } from './mcpBridge.js';
import { AgentKinds, parseCommandLine, type AgentKind, type Run } from './options.js';

/** The version of the package this file ships in (dist/cli/main.js → the package's package.json). */
function packageVersion(): string {
  try {
    const pkg: unknown = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8'));
    const version = (pkg as { version?: unknown }).version;
    return typeof version === 'string' ? version : 'unknown';
  } catch {
    return 'unknown';
  }
}

const out: Output = {
  stdout: (line) => process.stdout.write(`${line}\n`),
  progress: (line) => process.stderr.write(`hub-agent: ${line}\n`),
};

const isAgentRun = (run: Run): run is Extract<Run, { command: AgentKind }> => (AgentKinds as readonly string[]).includes(run.command);

async function execute(run: Run): Promise<number> {
  // stdout carries MCP only: nothing else may write there.
  if (run.command === 'mcp') {
    return runMcpBridge({ url: run.url, token: run.token, stdin: process.stdin, stdout: process.stdout, progress: out.progress });
  }
  const client = new HubClient({ url: run.url, token: run.token, since: 'since' in run ? run.since : undefined });
  try {
    if (run.command === 'send') return await sendCommand(run, client, out);
    if (run.command === 'tail') return await tailCommand(run, client, out);
    if (isAgentRun(run)) return await runAgentCommand(run, client, out);
    return await runAdmin(run, client.rest, out);
  } catch (err) {
    out.progress(errorMessage(err));
    await client.close();
    return 1;
  }
}

export async function main(argv: string[]): Promise<number> {
  loadDotenv({ quiet: true });
  const parsed = parseCommandLine(argv, process.env, packageVersion());
  if (!parsed.ok) {
    process.stdout.write(parsed.stdout);
    process.stderr.write(parsed.stderr);
    return parsed.code;
  }
  return execute(parsed.run);
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err: unknown) => {
    out.progress(`failed: ${errorMessage(err)}`);
    process.exit(1);
  },
);

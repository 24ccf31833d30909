#!/usr/bin/env node
// `hub-agent`: runs an example agent, sends one message, or tails what a user receives. Data goes to
// stdout, progress and connection state to stderr; Ctrl-C (or SIGTERM) stops cleanly, twice stops now.
// Exit codes: 0 done, 1 the hub refused or the message was not confirmed, 2 a usage mistake.
import { config as loadDotenv } from 'dotenv';
import { HubClient } from '../client/index.js';
import { errorMessage, runAgent } from '../examples/agent.js';
import { agentFromEnv } from './agents.js';
import { formatFrame } from './format.js';
import { parseCommandLine, USAGE, type AgentKind, type Command } from './options.js';

/** How long `send` waits for the hub to confirm. */
const SEND_TIMEOUT_MS = 15_000;

const progress = (line: string) => process.stderr.write(`hub-agent: ${line}\n`);

/** Resolves on the first SIGINT/SIGTERM; a second one exits at once. */
function interrupted(): Promise<void> {
  return new Promise((resolve) => {
    let signals = 0;
    const onSignal = () => {
      if (++signals > 1) process.exit(130);
      progress('stopping');
      resolve();
    };
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
  });
}

async function runAgentCommand(command: Extract<Command, { command: AgentKind }>, client: HubClient): Promise<number> {
  const agent = agentFromEnv(command.command, process.env, process.cwd());
  const running = await runAgent(client, agent, progress);
  const byUs = await Promise.race([interrupted().then(() => true), running.stopped.then(() => false)]);
  await running.stop();
  return byUs ? 0 : 1;
}

async function sendCommand(command: Extract<Command, { command: 'send' }>, client: HubClient): Promise<number> {
  client.on('status', (s) => progress(s.message));
  await client.connect();
  const frame =
    command.type === 'SYSTEM_LOG'
      ? { type: 'SYSTEM_LOG' as const, payload: { level: command.level, content: command.text }, target_id: command.to }
      : { type: 'CHAT' as const, payload: command.text, target_id: command.to };
  const timeout = new Promise<never>((_, reject) =>
    setTimeout(() => reject(new Error(`not confirmed within ${SEND_TIMEOUT_MS / 1000} s`)), SEND_TIMEOUT_MS).unref(),
  );
  try {
    const receipt = await Promise.race([client.send(frame), timeout]);
    process.stdout.write(`${receipt.id ?? receipt.local_id}\n`);
    return 0;
  } finally {
    await client.close();
  }
}

async function tailCommand(command: Extract<Command, { command: 'tail' }>, client: HubClient): Promise<number> {
  client.on('status', (s) => progress(s.message));
  client.on('warning', progress);
  client.on('ERROR', (e) => progress(`hub error ${e.payload.code}: ${e.payload.message}`));
  client.on('frame', (frame) => {
    const line = command.json ? JSON.stringify(frame) : formatFrame(frame);
    if (line !== undefined) process.stdout.write(`${line}\n`);
  });
  await client.connect();
  const byUs = await Promise.race([interrupted().then(() => true), client.stopped().then(() => false)]);
  await client.close();
  if (client.lastId !== undefined) progress(`last message id ${client.lastId} (resume with --since ${client.lastId})`);
  return byUs ? 0 : 1;
}

export async function main(argv: string[]): Promise<number> {
  loadDotenv({ quiet: true });
  const parsed = parseCommandLine(argv, process.env);
  if (!parsed.ok) {
    if (parsed.help) {
      process.stdout.write(`${USAGE}\n`);
      return 0;
    }
    progress(parsed.message ?? 'invalid arguments');
    process.stderr.write(`${USAGE}\n`);
    return 2;
  }
  const command = parsed.command;
  const client = new HubClient({ url: command.url, token: command.token, since: 'since' in command ? command.since : undefined });
  try {
    if (command.command === 'send') return await sendCommand(command, client);
    if (command.command === 'tail') return await tailCommand(command, client);
    return await runAgentCommand(command, client);
  } catch (err) {
    progress(errorMessage(err));
    await client.close();
    return 1;
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err: unknown) => {
    progress(`failed: ${errorMessage(err)}`);
    process.exit(1);
  },
);

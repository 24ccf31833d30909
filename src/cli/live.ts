// The WebSocket commands of `hub-agent`: run an example agent, send one message, tail what a user
// receives. Progress and connection state go to stderr; Ctrl-C (or SIGTERM) stops cleanly, twice stops now.
import type { HubClient } from '../client/index.js';
import { runAgent } from '../examples/agent.js';
import type { ServerFrame } from '../protocol/serverFrames.js';
import type { AgentKind, Run } from './options.js';
import { agentFromEnv } from './agents.js';
import { formatFrame } from './format.js';
import { userIdOf } from './users.js';
import type { Output } from './admin.js';

/** How long `send` waits for the hub to confirm. */
const SEND_TIMEOUT_MS = 15_000;

/** Resolves on the first SIGINT/SIGTERM; a second one exits at once. */
function interrupted(out: Output): Promise<void> {
  return new Promise((resolve) => {
    let signals = 0;
    const onSignal = () => {
      if (++signals > 1) process.exit(130);
      out.progress('stopping');
      resolve();
    };
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
  });
}

export async function runAgentCommand(run: Extract<Run, { command: AgentKind }>, client: HubClient, out: Output): Promise<number> {
  const agent = agentFromEnv(run.command, process.env, process.cwd());
  const running = await runAgent(client, agent, out.progress);
  const byUs = await Promise.race([interrupted(out).then(() => true), running.stopped.then(() => false)]);
  await running.stop();
  return byUs ? 0 : 1;
}

/** Rejects after `ms` with `message`; `cancel` stops the timer. */
function deadline(ms: number, message: string): { expired: Promise<never>; cancel(): void } {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(message)), ms);
  });
  return { expired, cancel: () => clearTimeout(timer) };
}

type ChatFrame = Extract<ServerFrame, { type: 'CHAT' }>;

/** The recipient's reply: its first CHAT to this user stored after our message (Butler's final CHAT, not its chunks). */
class ReplyWatch {
  private readonly seen: ChatFrame[] = [];
  private ourId: number | undefined;
  private resolve: ((frame: ChatFrame) => void) | undefined;

  constructor(client: HubClient, from: number) {
    // Listening from before the send: a reply that comes before our ACK is handled is kept.
    client.on('CHAT', (frame) => {
      if (frame.sender_id !== from) return;
      this.seen.push(frame);
      this.settle();
    });
  }

  after(ourId: number | undefined): Promise<ChatFrame> {
    this.ourId = ourId;
    return new Promise((resolve) => {
      this.resolve = resolve;
      this.settle();
    });
  }

  private settle(): void {
    if (!this.resolve) return;
    const reply = this.seen.find((f) => this.ourId === undefined || f.id === undefined || f.id > this.ourId);
    if (reply) this.resolve(reply);
  }
}

export async function sendCommand(run: Extract<Run, { command: 'send' }>, client: HubClient, out: Output): Promise<number> {
  // The name is looked up before connecting: a wrong name costs no socket.
  const to = run.to === undefined ? undefined : await userIdOf(client.rest, run.to);
  client.on('status', (s) => out.progress(s.message));
  // Listening before sending: a fast reply is not missed.
  const waiting = run.wait !== undefined && to !== undefined ? new ReplyWatch(client, to) : undefined;
  await client.connect();
  const frame =
    run.type === 'SYSTEM_LOG'
      ? { type: 'SYSTEM_LOG' as const, payload: { level: run.level, content: run.text }, target_id: to }
      : { type: 'CHAT' as const, payload: run.text, target_id: to };
  const confirm = deadline(SEND_TIMEOUT_MS, `not confirmed within ${SEND_TIMEOUT_MS / 1000} s`);
  try {
    const receipt = await Promise.race([client.send(frame), confirm.expired]);
    confirm.cancel();
    out.stdout(String(receipt.id ?? receipt.local_id));
    if (!waiting) return 0;
    out.progress(`waiting up to ${run.wait} s for the reply`);
    const answer = deadline(run.wait! * 1000, `no reply within ${run.wait} s`);
    try {
      const reply = await Promise.race([waiting.after(receipt.id), answer.expired]);
      out.stdout(reply.payload);
      return 0;
    } finally {
      answer.cancel();
    }
  } finally {
    confirm.cancel();
    await client.close();
  }
}

export async function tailCommand(run: Extract<Run, { command: 'tail' }>, client: HubClient, out: Output): Promise<number> {
  client.on('status', (s) => out.progress(s.message));
  client.on('warning', out.progress);
  client.on('ERROR', (e) => out.progress(`hub error ${e.payload.code}: ${e.payload.message}`));
  client.on('frame', (frame) => {
    const line = run.json ? JSON.stringify(frame) : formatFrame(frame);
    if (line !== undefined) out.stdout(line);
  });
  await client.connect();
  const byUs = await Promise.race([interrupted(out).then(() => true), client.stopped().then(() => false)]);
  await client.close();
  if (client.lastId !== undefined) out.progress(`last message id ${client.lastId} (resume with --since ${client.lastId})`);
  return byUs ? 0 : 1;
}

// A2A beside the native WebSocket, in the same run on the same hub: an echo agent on the hub's socket
// answers every chat; `concurrency` callers each ask it one question at a time, first over a member's
// WebSocket (send a CHAT, wait for the agent's CHAT back), then as A2A `SendMessage` with the official
// SDK's client (a blocking call that returns once the agent's answer completed the task). Round trips
// per second and their latency, so the table shows what the A2A layer (JSON-RPC over HTTP, the task
// stored, the answer matched) costs over the socket. The callers run in the orchestrator's process.
import { randomUUID } from 'node:crypto';
import { Message } from '@a2a-js/sdk';
import { ClientFactory, DefaultAgentCardResolver, JsonRpcTransportFactory, type Client } from '@a2a-js/sdk/client';
import WebSocket from 'ws';
import { createCast, HubApi } from '../lib/api.js';
import { pick } from '../lib/plan.js';
import { defineScenario } from '../lib/scenario.js';
import { ADMIN } from '../lib/servers.js';
import { int, ms, percentiles, Samples, type Percentiles } from '../lib/stats.js';

interface A2aSettings {
  /** Callers asking at once, one question in flight each. */
  concurrency: number;
  durationMs: number;
}

interface Row {
  transport: 'WebSocket' | 'A2A SendMessage';
  roundTrips: number;
  perSecond: number;
  latency: Percentiles;
  errors: number;
}

type Frame = { type: string; sender_id?: number; target_id?: number; conversation_id?: number; payload?: unknown };

function open(url: string): Promise<WebSocket> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url);
    ws.once('open', () => resolve(ws));
    ws.once('error', reject);
  });
}

/** Runs `ask` in `concurrency` loops for `durationMs`; each loop waits for its answer before the next. */
async function measure(transport: Row['transport'], concurrency: number, durationMs: number, ask: (loop: number, n: number) => Promise<void>): Promise<Row> {
  const samples = new Samples();
  let errors = 0;
  const until = performance.now() + durationMs;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async (_, loop) => {
      for (let n = 0; performance.now() < until; n++) {
        const at = performance.now();
        try {
          await ask(loop, n);
          samples.push(performance.now() - at);
        } catch {
          errors++;
        }
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  return { transport, roundTrips: samples.length, perSecond: samples.length / seconds, latency: percentiles(samples.view()), errors };
}

export default defineScenario({
  key: 'a2a',
  title: 'A2A SendMessage beside the WebSocket',
  order: 55,
  settings: (plan): A2aSettings => ({ concurrency: 16, durationMs: pick(plan, 1_500, 10_000) }),
  async run(ctx, s) {
    const store = await ctx.newStore('a2a');
    const hub = await ctx.startHub('a2a', store);
    const api = new HubApi(hub.baseUrl);
    const admin = await api.login(ADMIN.username, ADMIN.password);
    const cast = await createCast(api, admin.token, 'a2a', 1, 1);
    const member = cast.humans[0]!;
    const echo = cast.agents[0]!;

    // The echo agent: every chat back to its sender, in its thread.
    const agent = await open(hub.socketUrl(echo.api_token));
    agent.on('message', (data) => {
      const f = JSON.parse(String(data)) as Frame;
      if (f.type !== 'CHAT' || f.target_id !== echo.id || f.sender_id === undefined) return;
      agent.send(JSON.stringify({ type: 'CHAT', payload: `echo: ${String(f.payload)}`, target_id: f.sender_id, conversation_id: f.conversation_id }));
    });

    // WebSocket: one socket per caller; the answer is the agent's CHAT naming the question.
    const sockets = await Promise.all(Array.from({ length: s.concurrency }, () => open(hub.socketUrl(member.token))));
    const waiting = new Map<string, () => void>();
    for (const ws of sockets)
      ws.on('message', (data) => {
        const f = JSON.parse(String(data)) as Frame;
        if (f.type === 'CHAT' && f.sender_id === echo.id) waiting.get(String(f.payload))?.();
      });
    ctx.log(`a2a: WebSocket round trips for ${s.durationMs / 1000}s over ${s.concurrency} callers`);
    const wsRow = await measure('WebSocket', s.concurrency, s.durationMs, (loop, n) => {
      const text = `ws-${loop}-${n}`;
      return new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error('no answer')), 10_000);
        waiting.set(`echo: ${text}`, () => {
          clearTimeout(timer);
          waiting.delete(`echo: ${text}`);
          resolve();
        });
        sockets[loop]!.send(JSON.stringify({ type: 'CHAT', payload: text, target_id: echo.id }));
      });
    });

    // A2A: one SDK client per caller, each in its own context (a thread per caller).
    const fetchImpl: typeof fetch = (input, init) => {
      const headers = new Headers(init?.headers);
      headers.set('Authorization', `Bearer ${member.token}`);
      return fetch(input, { ...init, headers });
    };
    const factory = new ClientFactory({ transports: [new JsonRpcTransportFactory({ fetchImpl })], cardResolver: new DefaultAgentCardResolver({ fetchImpl }) });
    const clients: Client[] = await Promise.all(
      Array.from({ length: s.concurrency }, () => factory.createFromUrl(`${hub.baseUrl}/a2a/agents/${echo.username}/`)),
    );
    const contexts = clients.map(() => randomUUID());
    ctx.log(`a2a: SendMessage round trips for ${s.durationMs / 1000}s over ${s.concurrency} callers`);
    const a2aRow = await measure('A2A SendMessage', s.concurrency, s.durationMs, async (loop, n) => {
      const message = Message.fromJSON({ messageId: randomUUID(), role: 'ROLE_USER', parts: [{ text: `a2a-${loop}-${n}` }], contextId: contexts[loop] });
      const result = await clients[loop]!.sendMessage({ message, configuration: undefined, metadata: {}, tenant: '' });
      if (!('status' in result) || result.status?.state !== 3 /* TASK_STATE_COMPLETED */) throw new Error('the task did not complete');
    });

    for (const ws of [...sockets, agent]) ws.close();
    await ctx.stopHub(hub);
    const rows = [wsRow, a2aRow];
    for (const r of rows) ctx.log(`a2a: ${r.transport}: ${int(r.perSecond)} round trips/s, p50 ${ms(r.latency.p50)} ms, p99 ${ms(r.latency.p99)} ms`);
    return {
      summary: {
        wsRoundTripsPerSec: wsRow.perSecond,
        wsP50Ms: wsRow.latency.p50,
        wsP99Ms: wsRow.latency.p99,
        a2aRoundTripsPerSec: a2aRow.perSecond,
        a2aP50Ms: a2aRow.latency.p50,
        a2aP99Ms: a2aRow.latency.p99,
        a2aToWs: wsRow.perSecond > 0 ? a2aRow.perSecond / wsRow.perSecond : null,
      },
      details: { rows },
      markdown: [
        `### A2A beside the WebSocket (${s.concurrency} callers, one question in flight each, an echo agent on the hub's socket)`,
        '',
        "The same exchange both ways on one hub: a question to the agent and its answer back. WebSocket: a member's CHAT and the agent's CHAT in reply. " +
          "A2A: `SendMessage` with the official SDK's client (JSON-RPC over HTTP), returning once the agent's answer completed the task (the task stored as it goes). The callers run in the orchestrator's process.",
        '',
        '| transport | round trips | round trips/s | p50 ms | p99 ms | max ms | errors |',
        '|---|---:|---:|---:|---:|---:|---:|',
        ...rows.map(
          (r) =>
            `| ${r.transport} | ${int(r.roundTrips)} | **${int(r.perSecond)}** | ${ms(r.latency.p50)} | **${ms(r.latency.p99)}** | ${ms(r.latency.max)} | ${r.errors} |`,
        ),
      ],
      problems: rows
        .filter((r) => r.errors > 0 || r.roundTrips === 0)
        .map((r) => `${r.transport}: ${r.errors} failed round trips of ${r.roundTrips + r.errors}`),
    };
  },
});

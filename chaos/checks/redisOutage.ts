// Redis stopped under a three-node cluster while agents chat across nodes: nothing acknowledged may
// be lost or read twice, each sender's order holds, a message sent during the outage is read within
// 1.5 s (p99), and 5 s after Redis is back the latency is what it was before. A token rotated through
// one node while Redis is stopped closes its socket on another node within 3 s (the bus journal). An agent leaving
// and one arriving on node 1 while Redis is stopped reach a dashboard on node 2 within 8 s of Redis's return (the
// presence back-fill from the store). Cluster mode needs
// PostgreSQL: with --pg the run's scratch database, otherwise one of its own on --pg-url. Redis is a
// private redis-server on a free port, never the one anything else uses.
import { randomBytes } from 'node:crypto';
import WebSocket from 'ws';
import { pick } from '../../bench/lib/plan.js';
import { ms } from '../../bench/lib/stats.js';
import type { Hub } from '../../bench/lib/servers.js';
import { postgresStores, type StoreFactory } from '../../bench/lib/stores.js';
import type { CrossChatResult, CrossChatWindow, WindowFigures } from '../gen/crossChat.js';
import { defineCheck } from '../lib/check.js';
import { startCrossNodeChat } from '../lib/crossNodeChat.js';
import { sleep, until } from '../lib/poll.js';
import { startRedisServer } from '../lib/redisServer.js';
import { atMost, equals, holds, info } from '../lib/verdict.js';

const NODES = 3;

export default defineCheck({
  key: 'redisOutage',
  title: 'Redis stopped for 10 s under a three-node cluster: nothing lost or doubled, latency held',
  order: 70,
  settings: (plan) => ({
    agents: pick(plan, 15, 30),
    /** Messages a second over all agents (each to a human on another node). */
    rate: pick(plan, 150, 300),
    payloadBytes: 100,
    /** The first seconds of load warm the nodes up (JIT, pools) and are not judged. */
    warmupMs: pick(plan, 3_000, 5_000),
    beforeMs: pick(plan, 8_000, 20_000),
    outageMs: 10_000,
    afterMs: pick(plan, 10_000, 20_000),
    /** After Redis is back, latency must be back to its earlier p99 within this. */
    recoverMs: 5_000,
    outageP99BudgetMs: 1_500,
    /**
     * Slack on "back to the earlier p99" for the noise of a shared machine: 25 ms in the full run; 250 ms in
     * the quick one, whose few seconds of samples swing with any other load (the freeze it guards against
     * lasted tens of seconds).
     */
    recoverSlackMs: pick(plan, 250, 25),
    /** A socket whose token was rotated on another node must close within this while Redis is stopped. */
    revokeBudgetMs: 3_000,
    /** Presence decided on node 1 while Redis was stopped must reach node 2's dashboard within this of its return. */
    presenceBudgetMs: 8_000,
    drainTimeoutMs: 120_000,
  }),
  async run(ctx, s) {
    const own: StoreFactory | undefined = ctx.plan.store === 'postgres' ? undefined : await postgresStores(ctx.plan.pgUrl);
    const redis = await startRedisServer();
    const hubs: Hub[] = [];
    try {
      const store = own ? await own.create('redis-outage') : await ctx.newStore('redis-outage');
      const { cast, gen, at } = await startCrossNodeChat(ctx, {
        label: 'redisOutage',
        prefix: 'ro',
        store,
        redisUrl: redis.url,
        nodes: NODES,
        agents: s.agents,
        hubs,
      });
      const readiness = async () =>
        Promise.all(hubs.map(async (h) => ((await (await fetch(`${h.baseUrl}/api/ready`)).json()) as { status?: string }).status ?? 'not ready'));

      // One more agent, connected to node 2 from here: its token is rotated through node 1 during the outage.
      const revoked = await cast.api.registerAgent(cast.adminToken, `ro-revoked-${randomBytes(3).toString('hex')}`);
      ctx.secrets.add('api_token', revoked.api_token);
      const revokedSocket = await openSocket(hubs[1]!.socketUrl(revoked.api_token));
      // A dashboard on node 2, and two agents of node 1: one leaves and one arrives while Redis is stopped.
      const dashboard = await openSocket(hubs[1]!.socketUrl(cast.adminToken));
      const leaving = await cast.api.registerAgent(cast.adminToken, `ro-leaving-${randomBytes(3).toString('hex')}`);
      const coming = await cast.api.registerAgent(cast.adminToken, `ro-coming-${randomBytes(3).toString('hex')}`);
      for (const a of [leaving, coming]) ctx.secrets.add('api_token', a.api_token);
      const leavingSocket = await openSocket(hubs[0]!.socketUrl(leaving.api_token));
      await dashboard.seen(presenceIs(leaving.id, true), 10_000, performance.now());

      await gen.call('start', { rate: s.rate, payloadBytes: s.payloadBytes }, 10_000);
      await sleep(s.beforeMs);
      const down = await at();
      await redis.stop('SIGKILL');
      ctx.log(`redisOutage: Redis stopped at ${(down / 1000).toFixed(1)} s`);
      const rotatedAt = performance.now();
      ctx.secrets.add('api_token', (await cast.api.rotateToken(cast.adminToken, revoked.id)).api_token);
      const revokeMs = await revokedSocket.closedWithin(s.outageMs / 2, rotatedAt);
      leavingSocket.close();
      const comingSocket = await openSocket(hubs[0]!.socketUrl(coming.api_token));
      await sleep(Math.max(0, s.outageMs / 2 - (performance.now() - rotatedAt)));
      const during = await readiness();
      await sleep(s.outageMs / 2);
      await redis.start();
      const upAt = performance.now();
      const up = await at();
      ctx.log(`redisOutage: Redis back at ${(up / 1000).toFixed(1)} s`);
      // Both: the leaver OFFLINE, the arrival ONLINE (node 1 re-asserts only what it holds).
      const presenceSeen = Promise.all([
        dashboard.seen(presenceIs(leaving.id, false), s.presenceBudgetMs * 2, upAt),
        dashboard.seen(presenceIs(coming.id, true), s.presenceBudgetMs * 2, upAt),
      ]);
      await sleep(s.afterMs);
      const [leftMs, cameMs] = await presenceSeen;
      const presenceMs = leftMs === undefined || cameMs === undefined ? undefined : Math.max(leftMs, cameMs);
      dashboard.close();
      comingSocket.close();
      const end = await at();
      await gen.call('stop', {}, 10_000);
      const drained = await until<{ sent: number; acked: number; read: number }>(
        gen,
        (st) => st.acked === st.sent && st.read >= st.acked,
        s.drainTimeoutMs,
        250,
      );
      const after = await readiness();
      const windows: CrossChatWindow[] = [
        { label: 'before the outage', from: s.warmupMs, to: down },
        { label: 'Redis stopped', from: down, to: up },
        { label: `first ${s.recoverMs / 1000} s after Redis is back`, from: up, to: up + s.recoverMs },
        { label: `from ${s.recoverMs / 1000} s after Redis is back`, from: up + s.recoverMs, to: end },
      ];
      const r = await gen.call<CrossChatResult>('result', { windows }, 30_000);
      await gen.call('disconnect', {}, 10_000);
      const [before, outage, , recovered] = r.windows as [WindowFigures, WindowFigures, WindowFigures, WindowFigures];
      // "Back to the earlier p99": within 1.5× of it, with some slack for the noise of a shared machine.
      const recoveredBudget = Math.max(1.5 * before.readP99, before.readP99 + s.recoverSlackMs);
      const rates = (w: WindowFigures, from: number, to: number) => `${Math.round((w.acksArrived / (to - from)) * 1000)}`;
      return {
        measured:
          `${s.agents} agents spread over ${NODES} nodes (PostgreSQL, a private Redis) send targeted CHAT (${s.payloadBytes} bytes) at ${s.rate}/s in all, open loop, ` +
          `each to a human on another node (the first ${s.warmupMs / 1000} s warm up, not judged); after ${s.beforeMs / 1000} s Redis gets SIGKILL and is started again (empty) ${s.outageMs / 1000} s later; ` +
          `the load runs ${s.afterMs / 1000} s more. Latency is send → read (and send → ACK) of the messages sent in each window.`,
        verdicts: [
          equals('messages acknowledged and never read (lost)', r.lost, 0),
          equals('reads beyond the first (duplicated)', r.duplicated, 0),
          equals("reads out of their sender's order", r.outOfOrder, 0),
          equals('ERROR answers / sockets closed', `${r.errors} / ${r.closes}`, '0 / 0'),
          equals('messages never acknowledged', r.sent - r.acked, 0),
          info('drained: everything acknowledged and read', `${drained.status.read}/${drained.status.sent} read after ${ms(drained.ms)} ms`),
          info(
            'ACKs arriving per second before / while Redis was stopped',
            `${rates(before, s.warmupMs, down)} / ${rates(outage, down, up)} (offered ${s.rate})`,
          ),
          info('send → ACK p50 / p99 ms before / while stopped', `${ms(before.ackP50)} / ${ms(before.ackP99)} · ${ms(outage.ackP50)} / ${ms(outage.ackP99)}`),
          info('send → read p50 / p99 ms before the outage', `${ms(before.readP50)} / ${ms(before.readP99)}`),
          atMost('send → read p99 while Redis was stopped', outage.readP99, s.outageP99BudgetMs, ' ms'),
          info('send → read p50 / max ms while Redis was stopped', `${ms(outage.readP50)} / ${ms(outage.readMax)}`),
          info(`send → read p99 ms in the first ${s.recoverMs / 1000} s after Redis is back`, ms(r.windows[2]!.readP99)),
          atMost(
            `send → read p99 from ${s.recoverMs / 1000} s after Redis is back (1.5× the p99 before, +${s.recoverSlackMs} ms)`,
            recovered.readP99,
            recoveredBudget,
            ' ms',
          ),
          atMost(
            'a token rotated through node 1 while Redis was stopped: its socket on node 2 closed after',
            revokeMs ?? Number.POSITIVE_INFINITY,
            s.revokeBudgetMs,
            ' ms',
          ),
          atMost(
            "an agent leaving and one arriving on node 1 while Redis was stopped: on node 2's dashboard after Redis was back, within",
            presenceMs ?? Number.POSITIVE_INFINITY,
            s.presenceBudgetMs,
            ' ms',
          ),
          info('/api/ready of the nodes while stopped / after', `${during.join(', ')} / ${after.join(', ')}`),
          holds(
            'every node ready again after the drain',
            after.every((st) => st === 'ready'),
            after.join(', '),
            'ready ×3',
          ),
        ],
        notes: [
          `Per second of sending (s since the load began; Redis stopped at ${(down / 1000).toFixed(1)} s, back at ${(up / 1000).toFixed(1)} s): send → read p99 ms`,
          '',
          r.timeline.map((t) => `${t.second}: ${ms(t.readP99)}`).join(' · '),
          ...r.errorSamples.map((e) => `- ${e}`),
        ],
      };
    } finally {
      // The hubs go before their database does.
      for (const hub of hubs) await ctx.stopHub(hub).catch(() => undefined);
      await redis.stop('SIGTERM');
      await own?.dispose();
    }
  },
});

type Frame = { type?: string; sender_id?: number; payload?: { online?: boolean } };

/** A PRESENCE frame saying the agent is (or is not) online. */
const presenceIs = (id: number, online: boolean) => (f: Frame) => f.type === 'PRESENCE' && f.sender_id === id && f.payload?.online === online;

/**
 * A socket opened from the check itself; `closedWithin` resolves with ms from `from` to its close, or
 * undefined; `seen` with ms from `from` to the first frame matching that arrived after `from`, or undefined.
 */
async function openSocket(url: string) {
  const ws = new WebSocket(url);
  const frames: Array<{ at: number; frame: Frame }> = [];
  const waiters = new Set<() => void>();
  ws.on('message', (data) => {
    let frame: Frame;
    try {
      frame = JSON.parse(String(data)) as Frame;
    } catch {
      return;
    }
    frames.push({ at: performance.now(), frame });
    for (const wake of waiters) wake();
  });
  let closedAt: number | undefined;
  const closed = new Promise<void>((resolve) =>
    ws.once('close', () => {
      closedAt = performance.now();
      resolve();
    }),
  );
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('error', reject);
  });
  ws.on('error', () => undefined);
  return {
    close: () => ws.close(),
    async seen(match: (f: Frame) => boolean, ms: number, from: number): Promise<number | undefined> {
      const find = () => frames.find((f) => f.at >= from && match(f.frame));
      let found = find();
      if (!found) {
        let timer: NodeJS.Timeout | undefined;
        let wake = () => undefined as void;
        await new Promise<void>((resolve) => {
          wake = () => {
            found = find();
            if (found) resolve();
          };
          waiters.add(wake);
          timer = setTimeout(resolve, ms);
          void closed.then(resolve);
        });
        clearTimeout(timer);
        waiters.delete(wake);
      }
      return found === undefined ? undefined : Math.max(0, found.at - from);
    },
    async closedWithin(ms: number, from: number): Promise<number | undefined> {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([closed, new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)))]);
      clearTimeout(timer);
      if (closedAt === undefined) ws.terminate();
      return closedAt === undefined ? undefined : Math.max(0, closedAt - from);
    },
  };
}

// A node stalled while it holds the commit order. In cluster mode every node's batch holds the
// commit-order row (PostgreSQL) from its first statement to its COMMIT, over round trips its own process
// drives. Two nodes carry cross-node chat; node 1 is stopped (SIGSTOP, as a long pause or a starved CPU
// would) at a moment PostgreSQL shows it inside that window, for 8 s. Node 2's ACKs must go on after
// CLUSTER_COMMIT_HOLD (2 s) instead of waiting for node 1 (before: none arrived until node 1 resumed,
// the waiting batches failing at the statement timeout); nothing acknowledged may be lost or read twice,
// and every message is acknowledged or answered with ERROR (node 1's batch in progress is refused).
// Cluster mode needs PostgreSQL: with --pg the run's scratch database, otherwise one of its own.
import pg from 'pg';
import { pick } from '../../bench/lib/plan.js';
import { ms } from '../../bench/lib/stats.js';
import type { Hub } from '../../bench/lib/servers.js';
import { postgresStores, type StoreFactory } from '../../bench/lib/stores.js';
import type { CrossChatResult, CrossChatWindow, WindowFigures } from '../gen/crossChat.js';
import { defineCheck } from '../lib/check.js';
import { startCrossNodeChat } from '../lib/crossNodeChat.js';
import { sleep, until } from '../lib/poll.js';
import { startRedisServer } from '../lib/redisServer.js';
import { atLeast, equals, holds, info } from '../lib/verdict.js';

const NODES = 2;

/** A session inside an ordered transaction and silent this long, while the other node runs, is the stopped node's. */
const HOLDING_SQL = `
SELECT count(*) AS n FROM pg_stat_activity a
  JOIN pg_locks l ON l.pid = a.pid JOIN pg_class c ON c.oid = l.relation
 WHERE a.datname = current_database() AND a.state = 'idle in transaction' AND c.relname = 'cluster_commit_order'
   AND l.mode = 'RowShareLock' AND l.granted AND a.state_change < now() - interval '200 milliseconds'`;

export default defineCheck({
  key: 'nodeStall',
  title: 'a node stopped while it holds the commit order: the other node writes on after CLUSTER_COMMIT_HOLD',
  order: 72,
  settings: (plan) => ({
    agents: pick(plan, 10, 20),
    rate: pick(plan, 100, 200),
    payloadBytes: 100,
    warmupMs: 3_000,
    beforeMs: pick(plan, 5_000, 10_000),
    stallMs: 8_000,
    afterMs: pick(plan, 5_000, 10_000),
    /** CLUSTER_COMMIT_HOLD's default, and what the stall may cost the other node's ACKs on top of it. */
    holdMs: 2_000,
    slackMs: 1_500,
    drainTimeoutMs: 60_000,
  }),
  async run(ctx, s) {
    const own: StoreFactory | undefined = ctx.plan.store === 'postgres' ? undefined : await postgresStores(ctx.plan.pgUrl);
    const redis = await startRedisServer();
    const hubs: Hub[] = [];
    let sql: pg.Client | undefined;
    try {
      const store = own ? await own.create('node-stall') : await ctx.newStore('node-stall');
      const { gen, at } = await startCrossNodeChat(ctx, { label: 'nodeStall', prefix: 'ns', store, redisUrl: redis.url, nodes: NODES, agents: s.agents, hubs });
      sql = new pg.Client({ connectionString: store.env.DATABASE_URL });
      await sql.connect();
      await gen.call('start', { rate: s.rate, payloadBytes: s.payloadBytes }, 10_000);
      await sleep(s.beforeMs);

      // Stopped at a random moment node 1 may be between batches: stopped again until it is caught inside one.
      const node1 = hubs[0]!;
      let attempts = 0;
      let caught = false;
      while (!caught && attempts < 100) {
        attempts++;
        process.kill(node1.pid, 'SIGSTOP');
        await sleep(250);
        caught = Number((await sql.query<{ n: string }>(HOLDING_SQL)).rows[0]!.n) > 0;
        if (!caught) {
          process.kill(node1.pid, 'SIGCONT');
          await sleep(50);
        }
      }
      const stoppedAt = (await at()) - 250;
      ctx.log(`nodeStall: node 1 stopped inside its ordered transaction (attempt ${attempts}) at ${(stoppedAt / 1000).toFixed(1)} s`);
      await sleep(s.stallMs - 250);
      process.kill(node1.pid, 'SIGCONT');
      const resumedAt = await at();
      await sleep(s.afterMs);
      const end = await at();
      await gen.call('stop', {}, 10_000);
      const drained = await until<{ sent: number; acked: number; read: number; errors: number }>(
        gen,
        (st) => st.acked + st.errors >= st.sent && st.read >= st.acked,
        s.drainTimeoutMs,
        250,
      );
      const judgedFrom = stoppedAt + s.holdMs + s.slackMs;
      const windows: CrossChatWindow[] = [
        { label: 'before the stall', from: s.warmupMs, to: stoppedAt },
        { label: 'node 1 stopped', from: stoppedAt, to: resumedAt },
        { label: `node 1 stopped, from ${(s.holdMs + s.slackMs) / 1000} s in`, from: judgedFrom, to: resumedAt },
        { label: 'after node 1 resumed', from: resumedAt, to: end },
      ];
      const r = await gen.call<CrossChatResult>('result', { windows }, 30_000);
      await gen.call('disconnect', {}, 10_000);
      const [before, stalled, judged, after] = r.windows as [WindowFigures, WindowFigures, WindowFigures, WindowFigures];
      const perSecond = (w: WindowFigures, from: number, to: number) => Math.round((w.acksArrived / Math.max(1, to - from)) * 1000);
      // Node 2 sends half of the load; while node 1 is stopped only its ACKs can arrive.
      const node2Share = s.rate / NODES;
      return {
        measured:
          `${s.agents} agents over ${NODES} nodes (PostgreSQL, a private Redis) send targeted CHAT at ${s.rate}/s in all, each to a human on the other node; ` +
          `after ${s.beforeMs / 1000} s node 1 gets SIGSTOP at a moment PostgreSQL shows it inside its ordered transaction (holding the commit order), and SIGCONT ${s.stallMs / 1000} s later; ` +
          `the load runs ${s.afterMs / 1000} s more. CLUSTER_COMMIT_HOLD at its default (${s.holdMs / 1000} s).`,
        verdicts: [
          holds('node 1 caught holding the commit order', caught, caught ? `after ${attempts} stop(s)` : `not in ${attempts} stops`, 'caught'),
          info(
            'ACKs arriving per second before / while node 1 was stopped / after',
            `${perSecond(before, s.warmupMs, stoppedAt)} / ${perSecond(stalled, stoppedAt, resumedAt)} / ${perSecond(after, resumedAt, end)} (offered ${s.rate})`,
          ),
          atLeast(
            `ACKs per second while node 1 was stopped, from ${(s.holdMs + s.slackMs) / 1000} s in (node 2's half of the load is ${node2Share}/s)`,
            perSecond(judged, judgedFrom, resumedAt),
            Math.round(node2Share / 2),
          ),
          equals('messages acknowledged and never read (lost)', r.lost, 0),
          equals('reads beyond the first (duplicated)', r.duplicated, 0),
          equals("reads out of their sender's order", r.outOfOrder, 0),
          equals('messages neither acknowledged nor answered with ERROR', r.sent - r.acked - r.errors, 0),
          info('answered with ERROR (node 1’s batch in progress) / sockets closed', `${r.errors} / ${r.closes}`),
          info('drained', `${drained.status.read}/${drained.status.sent} read after ${ms(drained.ms)} ms`),
        ],
        notes: [
          `Per second of sending (node 1 stopped at ${(stoppedAt / 1000).toFixed(1)} s, resumed at ${(resumedAt / 1000).toFixed(1)} s): ACKs arriving`,
          '',
          r.timeline.map((t) => `${t.second}: ${t.acksArrived}`).join(' · '),
          ...r.errorSamples.map((e) => `- ${e}`),
        ],
      };
    } finally {
      for (const hub of hubs) {
        if (hub.alive()) process.kill(hub.pid, 'SIGCONT');
        await ctx.stopHub(hub).catch(() => undefined);
      }
      await sql?.end().catch(() => undefined);
      await redis.stop('SIGTERM');
      await own?.dispose();
    }
  },
});

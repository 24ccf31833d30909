// A node stopped at any moment, several times. In cluster mode every node's batch takes the
// commit-order row (PostgreSQL) before it draws ids. The writer before held it in a transaction from its
// first statement to COMMIT, over round trips its own process drove: a node stopped there (SIGSTOP, as a
// long pause or a starved CPU would) held every node's writes, until the idle-in-transaction limit
// ended its session (2 s), or before that limit until it resumed. Now each batch is one statement the
// server runs to its end (migrations/0020): a stopped node holds nothing. Two nodes carry cross-node
// chat; node 1 is stopped STOPS times for a few seconds, each time first looked for inside an ordered
// transaction (the writer before is caught there nearly every time; the hub's never is). Node 2's ACKs
// must stay prompt during every stop; nothing acknowledged may be lost or read twice, and every message
// is acknowledged or answered with ERROR. Cluster mode needs PostgreSQL: with --pg the run's scratch
// database, otherwise one of its own.
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
import { equals, holds, info } from '../lib/verdict.js';

const NODES = 2;

/** A session inside an ordered transaction and silent this long, while the other node runs, is the stopped node's. */
const HOLDING_SQL = `
SELECT count(*) AS n FROM pg_stat_activity a
  JOIN pg_locks l ON l.pid = a.pid JOIN pg_class c ON c.oid = l.relation
 WHERE a.datname = current_database() AND a.state = 'idle in transaction' AND c.relname = 'cluster_commit_order'
   AND l.mode = 'RowShareLock' AND l.granted AND a.state_change < now() - interval '200 milliseconds'`;
/** Stops made to find node 1 inside an ordered transaction before it is stopped for good wherever it is. */
const CATCH_ATTEMPTS = 20;

export default defineCheck({
  key: 'nodeStall',
  title: 'a node stopped at any moment, again and again: the other node writes on at once',
  order: 72,
  settings: (plan) => ({
    agents: pick(plan, 10, 20),
    rate: pick(plan, 100, 200),
    payloadBytes: 100,
    warmupMs: 3_000,
    beforeMs: pick(plan, 4_000, 8_000),
    stops: pick(plan, 3, 6),
    stopMs: 4_000,
    betweenMs: 2_000,
    /**
     * Node 2's send → ACK p99 while node 1 is stopped. A batch of node 1's that committed as it stopped
     * is not on the bus: node 2 waits for it the gate's grace (500 ms) and reads it from the store.
     * The writer before kept node 2 waiting at least the idle-in-transaction limit (2 s).
     */
    ackP99Ms: 1_500,
    afterMs: pick(plan, 4_000, 8_000),
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

      const node1 = hubs[0]!;
      const stops: Array<{ from: number; to: number; caught: boolean }> = [];
      for (let n = 0; n < s.stops; n++) {
        let caught = false;
        for (let attempt = 0; attempt < CATCH_ATTEMPTS && !caught; attempt++) {
          process.kill(node1.pid, 'SIGSTOP');
          await sleep(250);
          caught = Number((await sql.query<{ n: string }>(HOLDING_SQL)).rows[0]!.n) > 0;
          if (!caught && attempt < CATCH_ATTEMPTS - 1) {
            process.kill(node1.pid, 'SIGCONT');
            await sleep(50 + Math.random() * 100);
          }
        }
        const from = (await at()) - 250;
        await sleep(s.stopMs - 250);
        process.kill(node1.pid, 'SIGCONT');
        stops.push({ from, to: await at(), caught });
        ctx.log(`nodeStall: stop ${n + 1}: node 1 stopped ${caught ? 'inside its ordered transaction' : 'wherever it was'} at ${(from / 1000).toFixed(1)} s`);
        await sleep(s.betweenMs);
      }
      await sleep(s.afterMs);
      const end = await at();
      await gen.call('stop', {}, 10_000);
      const drained = await until<{ sent: number; acked: number; read: number; errors: number }>(
        gen,
        (st) => st.acked + st.errors >= st.sent && st.read >= st.acked,
        s.drainTimeoutMs,
        250,
      );
      const node2 = { index: 1, nodes: NODES };
      // Messages sent up to half a second before the resume: the later ones' ACKs may come with node 1's.
      const windows: CrossChatWindow[] = [
        { label: 'before the stops', from: s.warmupMs, to: stops[0]!.from },
        ...stops.map((stop, i) => ({ label: `stop ${i + 1}, node 2`, from: stop.from, to: stop.to - 500, node: node2 })),
        { label: 'after the stops', from: stops[stops.length - 1]!.to, to: end },
      ];
      const r = await gen.call<CrossChatResult>('result', { windows }, 30_000);
      await gen.call('disconnect', {}, 10_000);
      const before = r.windows[0]!;
      const during = r.windows.slice(1, -1);
      const after = r.windows[r.windows.length - 1]!;
      const perSecond = (w: WindowFigures, from: number, to: number) => Math.round((w.acksArrived / Math.max(1, to - from)) * 1000);
      const worst = Math.max(...during.map((w) => (Number.isNaN(w.ackP99) ? Infinity : w.ackP99)));
      return {
        measured:
          `${s.agents} agents over ${NODES} nodes (PostgreSQL, a private Redis) send targeted CHAT at ${s.rate}/s in all, each to a human on the other node; ` +
          `after ${s.beforeMs / 1000} s node 1 is stopped (SIGSTOP) ${s.stops} times for ${s.stopMs / 1000} s, ${s.betweenMs / 1000} s apart, each time looked for first ` +
          `inside an ordered transaction (up to ${CATCH_ATTEMPTS} tries), then stopped wherever it is; the load runs ${s.afterMs / 1000} s more.`,
        verdicts: [
          info('stops that caught node 1 inside an ordered transaction', `${stops.filter((x) => x.caught).length} of ${stops.length}`),
          holds(
            `node 2's send → ACK p99 during every stop (at most ${s.ackP99Ms} ms)`,
            worst <= s.ackP99Ms,
            during.map((w) => `${Number.isNaN(w.ackP99) ? 'none acknowledged' : `${Math.round(w.ackP99)} ms`} (${w.acked}/${w.sent})`).join(' · '),
            `each ≤ ${s.ackP99Ms} ms`,
          ),
          info(
            'ACKs arriving per second before the stops / after them',
            `${perSecond(before, s.warmupMs, stops[0]!.from)} / ${perSecond(after, stops[stops.length - 1]!.to, end)} (offered ${s.rate})`,
          ),
          equals('messages acknowledged and never read (lost)', r.lost, 0),
          equals('reads beyond the first (duplicated)', r.duplicated, 0),
          equals("reads out of their sender's order", r.outOfOrder, 0),
          equals('messages neither acknowledged nor answered with ERROR', r.sent - r.acked - r.errors, 0),
          info('answered with ERROR / sockets closed', `${r.errors} / ${r.closes}`),
          info('drained', `${drained.status.read}/${drained.status.sent} read after ${ms(drained.ms)} ms`),
        ],
        notes: [
          `Per second of sending (stops at ${stops.map((x) => `${(x.from / 1000).toFixed(1)}–${(x.to / 1000).toFixed(1)} s`).join(', ')}): ACKs arriving`,
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

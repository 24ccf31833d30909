// PostgreSQL failing under load (with --pg only): the hub reaches its store through a TCP proxy the
// check controls. Under agents sending, the hub's connections are terminated five times
// (pg_terminate_backend), connections are then refused for a while (the proxy's port closed), then
// the link is blackholed (the proxy holds every byte). The hub must keep running, answer what it
// cannot store with `unavailable` (agents send it again), answer reads with 503 in bounded time, stay
// within its write-queue bound, and store every acknowledged frame exactly once under its ACK's id.
import pg from 'pg';
import { pick } from '../../bench/lib/plan.js';
import { int } from '../../bench/lib/stats.js';
import { PG_APPLICATION_NAME } from '../../src/store/pgPool.js';
// The proxy the integration tests cut and blackhole PostgreSQL with.
import { startTcpProxy } from '../../test/helpers/tcpProxy.js';
import { crew } from '../lib/cast.js';
import { describeCloses } from '../lib/closes.js';
import { defineCheck } from '../lib/check.js';
import { sleep } from '../lib/poll.js';
import { sampleRss } from '../lib/rssSampler.js';
import { storedByLocalId } from '../lib/storeReader.js';
import { atMost, equals, holds, info, type Verdict } from '../lib/verdict.js';
import type { AckersDrainResult, AckersStatus, Ledger } from '../gen/protocol.js';

interface Settings {
  agents: number;
  humans: number;
  /** Frames each agent keeps unacknowledged: large, so agents send far ahead of their ACKs. */
  window: number;
  payloadBytes: number;
  terminations: number;
  /** Time between two faults, and after the last before the drain. */
  gapMs: number;
  refusedMs: number;
  blackholeMs: number;
  /**
   * The hub's PostgreSQL time limits for the run: the defaults in the full run (20 s for a reply, inside its
   * 24 s blackhole); shorter in the quick run, so that a read caught on a connection as it goes silent still
   * has to give up (503) inside the 8 s blackhole instead of being answered when the link returns.
   */
  limits: Record<string, string>;
  /** How long ACKs may take to come back after a fault ends. */
  recoveryMs: number;
  rssGuardMb: number;
}

export default defineCheck<Settings>({
  key: 'pgOutage',
  title: 'PostgreSQL connections terminated, refused and blackholed under load',
  order: 25,
  settings: (plan) => ({
    agents: pick(plan, 10, 40),
    humans: pick(plan, 4, 10),
    // Together past WRITE_QUEUE_MAX_BYTES (32 MiB) even in the quick run: 10 × 1,000 × 4 KB.
    window: 1_000,
    payloadBytes: 4_000,
    terminations: 5,
    gapMs: pick(plan, 2_000, 5_000),
    refusedMs: pick(plan, 3_000, 5_000),
    blackholeMs: pick(plan, 8_000, 24_000),
    limits: pick<Record<string, string>>(plan, { DB_CONNECT_TIMEOUT: '2s', DB_STATEMENT_TIMEOUT: '3s', DB_QUERY_TIMEOUT: '4s' }, {}),
    recoveryMs: 15_000,
    rssGuardMb: 3_000,
  }),
  async run(ctx, s) {
    if (ctx.plan.store !== 'postgres') {
      return { measured: 'PostgreSQL only: run with --pg.', verdicts: [info('skipped', 'the hub is on SQLite in this run')] };
    }
    const store = await ctx.newStore('pgoutage');
    const direct = new URL(store.env['DATABASE_URL']!);
    const proxy = await startTcpProxy({ host: direct.hostname, port: Number(direct.port || 5432) });
    const admin = new pg.Client({ connectionString: direct.toString() });
    await admin.connect();
    try {
      const hub = await ctx.hub('pgOutage', store, { DATABASE_URL: proxy.via(direct.toString()), ...s.limits });
      const cast = await crew(ctx, hub, 'pgOutage', s.humans, s.agents);
      const gen = await ctx.generator('ackers', 'chaos/gen/ackers.ts');
      await gen.call(
        'connect',
        {
          agentUrls: cast.agents.map((a) => hub.socketUrl(a.api_token)),
          humanUrls: cast.humans.map((h) => hub.socketUrl(h.token)),
          humanIds: cast.humans.map((h) => h.id),
        },
        60_000,
      );
      const tag = `pgo${Date.now().toString(36)}`;
      await gen.call('start', { tag, window: s.window, payloadBytes: s.payloadBytes, maxPerAgent: 1_000_000, resendUnavailableMs: 500 }, 10_000);
      const status = () => gen.call<AckersStatus>('status', {}, 10_000);
      /** Milliseconds until the ACK count grows past what it was when called (ACKs flowing again). */
      const recovery = async (): Promise<number> => {
        const t0 = performance.now();
        const from = (await status()).acked;
        while (performance.now() - t0 < s.recoveryMs) {
          if ((await status()).acked > from) return performance.now() - t0;
          await sleep(50);
        }
        return Infinity;
      };

      await sleep(s.gapMs);
      const rss = sampleRss(hub.pid, 200, s.rssGuardMb, () => void hub.kill('SIGKILL'));
      const baselineMb = rss.stop().lastMb;
      const during = sampleRss(hub.pid, 200, s.rssGuardMb, () => void hub.kill('SIGKILL'));

      // 1. The hub's sessions terminated, as a failover or an operator does.
      const terminated: number[] = [];
      const afterTermination: number[] = [];
      for (let i = 0; i < s.terminations; i++) {
        const killed = await admin.query(
          'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND application_name = $1',
          [PG_APPLICATION_NAME],
        );
        terminated.push(killed.rowCount ?? 0);
        afterTermination.push(await recovery());
        ctx.log(`pgOutage: terminated ${killed.rowCount} sessions; ACKs again after ${Math.round(afterTermination.at(-1)!)} ms`);
        await sleep(s.gapMs);
      }

      // 2. Connections refused (the server's port closed).
      await proxy.cut();
      await sleep(s.refusedMs);
      await proxy.restore();
      const afterRefused = await recovery();
      ctx.log(`pgOutage: connections refused for ${s.refusedMs} ms; ACKs again after ${Math.round(afterRefused)} ms`);
      await sleep(s.gapMs);

      // 3. Blackholed: nothing answers, nothing is refused.
      const before = await status();
      const holeAt = performance.now();
      proxy.blackhole();
      // A member's read while the store is silent (the admin's JWT from before: logging in needs the store too).
      const agentList = fetch(`${hub.baseUrl}/api/users/agents`, {
        headers: { Authorization: `Bearer ${cast.adminToken}` },
        signal: AbortSignal.timeout(60_000),
      }).then(
        (res) => ({ status: res.status, retryAfter: res.headers.get('retry-after'), ms: performance.now() - holeAt }),
        (err: unknown) => ({ status: 0, retryAfter: String(err), ms: performance.now() - holeAt }),
      );
      let firstUnavailableMs = Infinity;
      while (performance.now() - holeAt < s.blackholeMs) {
        if ((await status()).unavailable > before.unavailable) {
          firstUnavailableMs = performance.now() - holeAt;
          break;
        }
        await sleep(100);
      }
      const ready = await fetch(`${hub.baseUrl}/api/ready`, { signal: AbortSignal.timeout(10_000) }).then(
        (res) => res.status,
        () => 0,
      );
      await sleep(Math.max(0, s.blackholeMs - (performance.now() - holeAt)));
      const inHole = await status();
      await proxy.restore();
      const afterBlackhole = await recovery();
      const list = await agentList;
      ctx.log(
        `pgOutage: blackholed for ${s.blackholeMs} ms; agent list ${list.status} after ${Math.round(list.ms)} ms; ACKs again after ${Math.round(afterBlackhole)} ms`,
      );
      const unavailableInHole = inHole.unavailable - before.unavailable;
      const peak = during.stop();

      await sleep(s.gapMs);
      const drained = await gen.call<AckersDrainResult>('drain', { timeoutMs: 60_000 }, 70_000);
      const ledger = await gen.call<Ledger>('ledger', {}, 60_000);
      await gen.call('disconnect', {}, 10_000);
      const alive = hub.alive();
      await ctx.stopHub(hub);

      const rows = await storedByLocalId(store, `${tag}.`);
      const idsByLocalId = new Map<string, number[]>();
      for (const row of rows) idsByLocalId.set(row.local_id!, [...(idsByLocalId.get(row.local_id!) ?? []), row.id]);
      let missing = 0;
      let wrongId = 0;
      for (const [localId, id] of ledger.acked) {
        const ids = idsByLocalId.get(localId);
        if (!ids) missing++;
        else if (!ids.includes(id)) wrongId++;
      }
      const storedTwice = [...idsByLocalId.values()].filter((ids) => ids.length > 1).length;

      const verdicts: Verdict[] = [
        holds('the hub kept running', alive, alive ? 'running' : 'exited', 'running'),
        info('frames acknowledged', `${int(ledger.acked.length)} of ${int(ledger.sent)} sent`),
        equals('acknowledged frames missing from the store', missing, 0),
        equals('acknowledged frames stored under another id than their ACK said', wrongId, 0),
        equals('frames stored more than once', storedTwice, 0),
        equals('frames still unacknowledged after the drain', drained.unacked, 0),
        info('sessions terminated each time', terminated.join(' / ')),
        atMost('ACKs back after each termination (slowest)', Math.max(...afterTermination) / 1000, s.recoveryMs / 1000, ' s'),
        atMost('ACKs back after connections were refused', afterRefused / 1000, s.recoveryMs / 1000, ' s'),
        atMost('ACKs back after the blackhole', afterBlackhole / 1000, s.recoveryMs / 1000, ' s'),
        holds('frames answered unavailable during the blackhole', unavailableInHole > 0, int(unavailableInHole), '> 0'),
        atMost('blackhole start → first unavailable', firstUnavailableMs / 1000, 25, ' s'),
        equals(
          'GET /api/users/agents during the blackhole',
          `${list.status}${list.retryAfter ? ` (Retry-After ${list.retryAfter})` : ''}`,
          '503 (Retry-After 5)',
        ),
        atMost('… answered after', list.ms / 1000, 25, ' s'),
        equals('GET /api/ready during the blackhole', ready, 503),
        info('hub RSS before the faults → peak', `${baselineMb.toFixed(0)} → ${peak.peakMb.toFixed(0)} MB`),
        atMost('hub RSS growth at peak', peak.peakMb - baselineMb, 400, ' MB'),
        info('ERROR frames with unavailable (all faults)', int(drained.unavailable)),
        info('close codes the clients saw', describeCloses(drained.closes)),
      ];
      return {
        measured: `${s.agents} agents send targeted CHAT of ${s.payloadBytes} bytes (up to ${s.window} unacknowledged each; a frame answered unavailable goes again after 0.5 s) to ${s.humans} humans, the hub on PostgreSQL through a TCP proxy: ${s.terminations} × pg_terminate_backend of every hub session (${s.gapMs / 1000} s apart), connections refused for ${s.refusedMs / 1000} s, then a blackhole of ${s.blackholeMs / 1000} s${
          Object.keys(s.limits).length
            ? ` (limits: ${Object.entries(s.limits)
                .map(([k, v]) => `${k}=${v}`)
                .join(', ')})`
            : ''
        }. Then the ACK ledger against the messages table.`,
        verdicts,
        notes: drained.errorSamples.length > 0 ? [`ERROR frames, e.g.: \`${drained.errorSamples.join('` `')}\``] : [],
      };
    } finally {
      await proxy.close();
      await admin.end();
    }
  },
});

// Read stall: one signed-in member calling every expensive read (the message list with and without a
// search, the charts' counts) in a loop from several connections, on a store of many rows. An
// unrelated agent's acknowledgements must not notice: its ACK p99 with the member at it stays within
// 2× of the p99 with the hub idle (the quick run, shorter and on fewer rows, is judged more loosely:
// 4×, or idle + 250 ms, whichever is more, as its few hundred samples swing on a shared machine; the
// stall it guards against cost seconds).
import { pick } from '../../bench/lib/plan.js';
import { int, ms } from '../../bench/lib/stats.js';
import { crew } from '../lib/cast.js';
import { defineCheck } from '../lib/check.js';
import { answeredWith, hammerNotes, heavyPaths } from '../lib/expensiveReads.js';
import { seedMessages } from '../lib/seedMessages.js';
import { atMost, equals, holds, info } from '../lib/verdict.js';
import type { AckProbeResult } from '../gen/ackProbe.js';
import type { HammerResult } from '../gen/readHammer.js';

export default defineCheck({
  key: 'readStall',
  title: "one member's expensive reads in a loop do not slow an unrelated agent's ACKs",
  order: 45,
  settings: (plan) => ({
    rows: pick(plan, 100_000, 800_000),
    callers: 12,
    /** One CHAT every 20 ms: 50 ACKs a second timed. */
    intervalMs: 20,
    durationMs: pick(plan, 10_000, 30_000),
    /** The bar: loaded p99 ≤ max(factor × idle p99, idle p99 + slackMs). */
    factor: pick(plan, 4, 2),
    slackMs: pick(plan, 250, 0),
  }),
  async run(ctx, s) {
    const store = await ctx.newStore('readstall');
    const hub = await ctx.hub('readstall', store);
    const cast = await crew(ctx, hub, 'readstall', 2, 2);
    const [member, listener] = cast.humans;
    const [probeAgent, seedAgent] = cast.agents;

    const seedStarted = performance.now();
    await seedMessages(store, { id: seedAgent!.id, username: seedAgent!.username }, s.rows, (done) => {
      if (done % 200_000 === 0 || done === s.rows) ctx.log(`readStall: ${int(done)} rows seeded`);
    });
    const seedSeconds = (performance.now() - seedStarted) / 1000;

    const probe = await ctx.generator('ackprobe', 'chaos/gen/ackProbe.ts');
    await probe.call('connect', { url: hub.socketUrl(probeAgent!.api_token), targetId: listener!.id }, 30_000);
    const measure = (tag: string) =>
      probe.call<AckProbeResult>(
        'measure',
        { tag: `${tag}${Date.now().toString(36)}`, durationMs: s.durationMs, intervalMs: s.intervalMs, graceMs: 10_000 },
        s.durationMs + 60_000,
      );

    ctx.log('readStall: ACKs with the hub idle');
    const idle = await measure('idle');

    const hammer = await ctx.generator('readhammer', 'chaos/gen/readHammer.ts');
    await hammer.call('start', { baseUrl: hub.baseUrl, token: member!.token, paths: heavyPaths(seedAgent!.username), callers: s.callers }, 10_000);
    ctx.log(`readStall: ACKs while ${s.callers} connections of one member call the expensive reads in a loop`);
    const loaded = await measure('loaded');
    const hammered = await hammer.call<HammerResult>('stop', {}, 120_000);
    await probe.call('disconnect', {}, 10_000);

    const bar = Math.max(s.factor * idle.latency.p99, idle.latency.p99 + s.slackMs);
    const measuredBoth = idle.acked > 0 && loaded.acked > 0;
    const serverErrors = Object.entries(hammered.statuses).filter(([key]) => Number(key.split(' ')[1]) >= 500 && !key.endsWith(' 503'));
    const byStatus = (status: number) => answeredWith(hammered, status);
    return {
      measured:
        `${int(s.rows)} dashboard rows seeded straight into the store (${seedSeconds.toFixed(1)} s); an agent sends a CHAT every ${s.intervalMs} ms and times its ACK, ` +
        `for ${s.durationMs / 1000} s with the hub idle, then ${s.durationMs / 1000} s while one member calls ${heavyPaths('x').length} expensive reads in a loop ` +
        `from ${s.callers} connections (Retry-After ignored), at the hub's default DB_READ_POOL_SIZE, DB_READ_TIMEOUT and READS_PER_CALLER.`,
      verdicts: [
        info('ACK p50 / p99 / max ms, idle', `${ms(idle.latency.p50)} / ${ms(idle.latency.p99)} / ${ms(idle.latency.max)} (${idle.acked} ACKs)`),
        info(
          'ACK p50 / p99 / max ms, reads hammered',
          `${ms(loaded.latency.p50)} / ${ms(loaded.latency.p99)} / ${ms(loaded.latency.max)} (${loaded.acked} ACKs)`,
        ),
        measuredBoth
          ? atMost(
              `ACK p99 while hammered (bar: ${s.slackMs > 0 ? `max(${s.factor}× idle, idle + ${s.slackMs} ms)` : `${s.factor}× idle`})`,
              Number(loaded.latency.p99.toFixed(1)),
              Number(bar.toFixed(1)),
              ' ms',
            )
          : holds('ACK p99 while hammered', false, `no ACK arrived (idle ${idle.acked}, hammered ${loaded.acked})`, 'ACKs in both phases'),
        equals(
          'probe frames not acknowledged, answered with ERROR, or cut by a close',
          idle.missing + loaded.missing + idle.errors + loaded.errors + loaded.closes.length,
          0,
        ),
        info(
          'expensive reads answered 200 / 429 / 503, and their 200s p50 / p99 ms',
          `${int(byStatus(200))} / ${int(byStatus(429))} / ${int(byStatus(503))}; ${ms(hammered.served.p50)} / ${ms(hammered.served.p99)}`,
        ),
        equals('expensive reads answered 500 or other 5xx (503 aside), or not at all', serverErrors.reduce((n, [, c]) => n + c, 0) + hammered.failures, 0),
      ],
      notes: hammerNotes(hammered),
    };
  },
});

// The hub held: dashboards that read everything get a steady fan-out while the hub's process is
// stopped (SIGSTOP, then SIGCONT) for longer than the hub gives a ping (STALL_MS), again and again, each
// stop landing inside a run, as a long GC pause or a starved CPU holds the event loop. The dashboards
// are far away (their pongs reach the hub 100 ms after they answer), so on this stream each is often a
// read window behind, its frames waiting for a pong. Pongs that arrive during a hold wait in the
// kernel, unread by the hub: that time is the hub's, not the reader's, and no reader may be cut off as
// a slow consumer for it. WS_MAX_BUFFERED_BYTES is raised so that what piles up for a reader during a
// hold stays under it: the check judges the stall clock, not the bound. A reader cut off while its own
// process was starved is reported apart, as the stalled check does.
import type { LoopStall } from '../../bench/gen/loopStalls.js';
import { pick } from '../../bench/lib/plan.js';
import { ms } from '../../bench/lib/stats.js';
import { connectRig, disconnectRig, runLoad } from '../../bench/phases/load.js';
import { STALL_MS } from '../../src/ws/open.js';
import { startTcpProxy } from '../../test/helpers/tcpProxy.js';
import { crew } from '../lib/cast.js';
import { defineCheck } from '../lib/check.js';
import { sleep } from '../lib/poll.js';
import { holdInsideRun } from '../lib/processHold.js';
import { describeReaders, judgeReaderCutOffs, readersVerdict, slowConsumerCloses } from '../lib/slowConsumers.js';
import { equals, info } from '../lib/verdict.js';

export default defineCheck({
  key: 'hubHeld',
  title: 'the hub held (SIGSTOP inside a run) past STALL_MS does not cut off the dashboards that read',
  order: 41,
  settings: (plan) => ({
    members: 5,
    socketsPerMember: 4,
    agents: 10,
    rate: 500,
    /** 1 MB/s to each reader: with its pongs 100 ms late, a read window (128 KiB) lasts about one round trip. */
    payloadBytes: 2_000,
    /** What the readers send (their pongs) reaches the hub this much later. */
    linkDelayMs: 100,
    /** WS_MAX_BUFFERED_BYTES for this hub: a hold piles up 2.5 MB for each reader. */
    maxBufferedBytes: 16 * 1024 * 1024,
    holds: pick(plan, 3, 5),
    holdMs: 2_500,
    gapMs: 1_500,
    warmupMs: 2_000,
    /** Stops let go at once because they found the hub waiting for events, at most. */
    catchTries: 200,
  }),
  async run(ctx, s) {
    const hub = await ctx.hub('hubHeld', await ctx.newStore('hubheld'), { WS_MAX_BUFFERED_BYTES: String(s.maxBufferedBytes) });
    const link = await startTcpProxy({ host: '127.0.0.1', port: Number(new URL(hub.baseUrl).port) }, { delayMs: s.linkDelayMs });
    try {
      const cast = await crew(ctx, hub, 'hubheld', s.members, s.agents);
      const rig = await connectRig(ctx, hub, {
        receiverUrls: cast.humans.flatMap((h) => Array.from({ length: s.socketsPerMember }, () => link.via(hub.socketUrl(h.token)))),
        senderUrls: cast.agents.map((a) => hub.socketUrl(a.api_token)),
        send: { frame: 'log' },
        latencySockets: 10,
      });
      const durationMs = s.warmupMs + s.holds * (s.holdMs + s.gapMs);
      const load = runLoad(
        rig,
        {
          label: 'held',
          tag: `held${Date.now().toString(36)}`,
          mode: { kind: 'open', rate: s.rate },
          durationMs,
          rampMs: 1_000,
          drainMs: 30_000,
          payloadBytes: s.payloadBytes,
          // A reader cut off is counted (and judged below), not reported as lost deliveries.
          overloadProbe: true,
        },
        ctx.log,
      );
      let held = 0;
      try {
        await sleep(s.warmupMs);
        for (let i = 0; i < s.holds && hub.alive(); i++) {
          const tries = await holdInsideRun(hub.pid, s.holdMs, s.catchTries, 1);
          if (tries !== undefined) held++;
          ctx.log(`hubHeld: hold ${i + 1}: inside a run after ${tries ?? `no (${s.catchTries})`} tries`);
          await sleep(s.gapMs);
        }
      } finally {
        if (hub.alive()) process.kill(hub.pid, 'SIGCONT');
      }
      const row = await load;
      const readerStalls = await rig.receivers.call<LoopStall[]>('loopStalls', {}, 10_000);
      await disconnectRig(rig);

      const readerNames = new Set(cast.humans.map((h) => h.username));
      const cut = slowConsumerCloses(ctx.hubLog('hubHeld'));
      const judged = judgeReaderCutOffs(
        cut.filter((c) => readerNames.has(c.user)),
        readerStalls,
        // With the bound raised only an unanswered ping cuts a reader off: a starved one stalled that long, less the link's delay.
        STALL_MS - s.linkDelayMs,
      );
      return {
        measured:
          `${s.agents} agents send SYSTEM_LOG (${s.payloadBytes} bytes) at ${s.rate}/s open loop to ${rig.receiverSockets} reading dashboards for ${durationMs / 1000} s, ` +
          `through a link that brings what the dashboards send (their pongs) ${s.linkDelayMs} ms late; WS_MAX_BUFFERED_BYTES ${s.maxBufferedBytes / 1024 / 1024} MiB. ` +
          `After ${s.warmupMs / 1000} s the hub's process gets SIGSTOP for ${s.holdMs / 1000} s (STALL_MS is ${STALL_MS / 1000} s), then SIGCONT, ${s.holds} times ${s.gapMs / 1000} s apart, ` +
          `each stop repeated until it finds the hub inside a run. The hub's log says which sockets it cut off as slow consumers (4011).`,
        verdicts: [
          equals('holds of the hub inside a run', held, s.holds),
          readersVerdict('reading dashboards cut off as slow consumers while their process kept up', judged, rig.receiverSockets),
          info('reading dashboards cut off while their process was starved (not a hub fault)', describeReaders(judged.filter((r) => r.starved))),
          equals('other sockets cut off as slow consumers (agents)', cut.filter((c) => !readerNames.has(c.user)).length, 0),
          info('reading dashboards that read through the run (as they saw it)', `${rig.receiverSockets - row.cutOff} of ${rig.receiverSockets}`),
          info('reading dashboards p99 ms (the holds included)', ms(row.latency.p99)),
          equals('messages lost, duplicated or refused for the reading dashboards and senders', row.problems.length, 0),
        ],
        notes: row.problems.map((p) => `- ${p}`),
      };
    } finally {
      await link.close();
    }
  },
});

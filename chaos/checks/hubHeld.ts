// The hub held: dashboards that read everything get a steady fan-out while the hub's process is
// stopped (SIGSTOP, then SIGCONT, as a long GC pause, a starved CPU or a paused VM would hold its event
// loop) for longer than the hub gives a ping (STALL_MS), again and again: each time once wherever the
// stop lands, then once inside a run while the hub works through what piled up meanwhile. Pongs that
// arrive during a hold wait in the kernel, unread by the hub: that time is the hub's, not the
// reader's, and no reader may be cut off as a slow consumer for it (what piles up for a reader during
// a hold stays under WS_MAX_BUFFERED_BYTES). A reader cut off while its own process was starved is
// reported apart, as the stalled check does.
import type { LoopStall } from '../../bench/gen/loopStalls.js';
import { pick } from '../../bench/lib/plan.js';
import { ms } from '../../bench/lib/stats.js';
import { connectRig, disconnectRig, runLoad } from '../../bench/phases/load.js';
import { STALL_MS } from '../../src/ws/open.js';
import { crew } from '../lib/cast.js';
import { defineCheck } from '../lib/check.js';
import { sleep } from '../lib/poll.js';
import { holdInsideRun, holdProcess } from '../lib/processHold.js';
import { describeReaders, judgeReaderCutOffs, readerAllowanceMs, readersVerdict, slowConsumerCloses } from '../lib/slowConsumers.js';
import { equals, info } from '../lib/verdict.js';

export default defineCheck({
  key: 'hubHeld',
  title: 'the hub held (SIGSTOP) past STALL_MS does not cut off the dashboards that read',
  order: 41,
  settings: (plan) => ({
    members: 5,
    socketsPerMember: 4,
    agents: 10,
    rate: 200,
    /** 200 KB/s to each reader: a hold piles up 500 KB for it, under the hub's 1 MiB bound. */
    payloadBytes: 1_000,
    rounds: pick(plan, 3, 6),
    holdMs: 2_500,
    gapMs: 1_500,
    warmupMs: 2_000,
    /** Stops let go at once because they found the hub waiting for events, at most. */
    catchTries: 200,
  }),
  async run(ctx, s) {
    const hub = await ctx.hub('hubHeld', await ctx.newStore('hubheld'));
    const cast = await crew(ctx, hub, 'hubheld', s.members, s.agents);
    const rig = await connectRig(ctx, hub, {
      receiverUrls: cast.humans.flatMap((h) => Array.from({ length: s.socketsPerMember }, () => hub.socketUrl(h.token))),
      senderUrls: cast.agents.map((a) => hub.socketUrl(a.api_token)),
      send: { frame: 'log' },
      latencySockets: 10,
    });
    const durationMs = s.warmupMs + s.rounds * (2 * s.holdMs + s.gapMs);
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
    let heldInRun = 0;
    try {
      await sleep(s.warmupMs);
      for (let i = 0; i < s.rounds && hub.alive(); i++) {
        await holdProcess(hub.pid, s.holdMs);
        held++;
        const tries = await holdInsideRun(hub.pid, s.holdMs, s.catchTries, 1);
        if (tries !== undefined) heldInRun++;
        ctx.log(`hubHeld: round ${i + 1}: held, then held inside a run after ${tries ?? `no (${s.catchTries})`} tries`);
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
      readerAllowanceMs(s.rate * s.payloadBytes),
    );
    return {
      measured:
        `${s.agents} agents send SYSTEM_LOG (${s.payloadBytes} bytes) at ${s.rate}/s open loop to ${rig.receiverSockets} reading dashboards for ${durationMs / 1000} s; ` +
        `after ${s.warmupMs / 1000} s the hub's process gets SIGSTOP for ${s.holdMs / 1000} s (STALL_MS is ${STALL_MS / 1000} s), then SIGCONT, twice in a row (the second stop ` +
        `repeated until it finds the hub inside a run), ${s.rounds} times ${s.gapMs / 1000} s apart. The hub's log says which sockets it cut off as slow consumers (4011).`,
      verdicts: [
        equals('holds of the hub wherever they landed', held, s.rounds),
        equals('holds of the hub inside a run', heldInRun, s.rounds),
        readersVerdict('reading dashboards cut off as slow consumers while their process kept up', judged, rig.receiverSockets),
        info('reading dashboards cut off while their process was starved (not a hub fault)', describeReaders(judged.filter((r) => r.starved))),
        equals('other sockets cut off as slow consumers (agents)', cut.filter((c) => !readerNames.has(c.user)).length, 0),
        info('reading dashboards that read through the run (as they saw it)', `${rig.receiverSockets - row.cutOff} of ${rig.receiverSockets}`),
        info('reading dashboards p99 ms (the holds included)', ms(row.latency.p99)),
        equals('messages lost, duplicated or refused for the reading dashboards and senders', row.problems.length, 0),
      ],
      notes: row.problems.map((p) => `- ${p}`),
    };
  },
});

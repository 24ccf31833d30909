// Dashboard fan-out on the hub: agents send SYSTEM_LOG without a target, which the hub stores and
// delivers to every human socket (the dashboards). Deliveries/s = messages/s × human sockets. Open
// loops only, at rising rates until the hub falls behind: a broadcast is ACKed once stored, before it
// is delivered, so a closed loop would let the senders outrun the deliveries without bound.
import { connectRig, disconnectRig, highestKeptUp, runSeries, seriesProblems, type LoadSettings } from '../phases/load.js';
import { createCast, HubApi } from '../lib/api.js';
import { pick } from '../lib/plan.js';
import { markdownSection } from '../lib/report.js';
import { defineScenario } from '../lib/scenario.js';
import { ADMIN } from '../lib/servers.js';

interface FanoutSettings extends LoadSettings {
  agents: number;
  members: number;
  /** Sockets per member (dashboard tabs): human sockets = members × this. */
  socketsPerMember: number;
  /** Sockets whose receipts give latency samples (every socket is checked for loss). */
  latencySockets: number;
}

/** The budget, 100,000 deliveries/s: the first open loop's rate, and the step between them. */
const TARGET_DELIVERIES = 100_000;

export default defineScenario({
  key: 'fanout',
  title: 'Dashboard fan-out (SYSTEM_LOG to every human socket)',
  order: 40,
  settings(plan): FanoutSettings {
    const members = 20;
    const socketsPerMember = pick(plan, 5, 10);
    return {
      agents: 20,
      members,
      socketsPerMember,
      latencySockets: 10,
      payloadBytes: 100,
      warmupMs: pick(plan, 1_000, 4_000),
      // Messages/s that make 100k, 200k... deliveries/s with this many sockets.
      warmupRate: Math.round(TARGET_DELIVERIES / (2 * members * socketsPerMember)),
      openRates: [1, 2, 3, 4, 5, 6].map((k) => Math.round((k * TARGET_DELIVERIES) / (members * socketsPerMember))),
      openMs: pick(plan, 1_500, 10_000),
      stopWhenBehind: true,
      windows: [],
      closedMs: 0,
      rampMs: pick(plan, 500, 3_000),
      drainMs: 60_000,
    };
  },
  async run(ctx, s) {
    const hub = await ctx.startHub('fanout', await ctx.newStore('fanout'));
    const api = new HubApi(hub.baseUrl);
    const { token } = await api.login(ADMIN.username, ADMIN.password);
    const cast = await createCast(api, token, 'fan', s.members, s.agents);
    const dashboards = cast.humans.flatMap((h) => Array.from({ length: s.socketsPerMember }, () => hub.socketUrl(h.token)));
    ctx.log(`fanout: ${s.agents} agents → ${dashboards.length} dashboard sockets (${s.members} members × ${s.socketsPerMember})`);
    const rig = await connectRig(ctx, hub, {
      receiverUrls: dashboards,
      senderUrls: cast.agents.map((a) => hub.socketUrl(a.api_token)),
      send: { frame: 'log' },
      latencySockets: s.latencySockets,
    });
    const result = await runSeries(rig, 'fan', s, ctx.log);
    await disconnectRig(rig);
    await ctx.stopHub(hub, result.window, 'the reported fan-out runs');
    const best = highestKeptUp(result.rows);
    const atTarget = result.rows[0];
    return {
      summary: {
        deliveriesPerSec: best?.deliveredRate ?? null,
        msgPerSec: best?.messageRate ?? null,
        sockets: dashboards.length,
        p99MsAtTarget: atTarget?.latency.p99 ?? null,
      },
      details: { warmup: result.warmup, runs: result.rows },
      markdown: markdownSection(
        `Dashboard fan-out on the hub (${s.agents} agents → ${dashboards.length} human sockets, SYSTEM_LOG stored, ${s.payloadBytes}-byte text)`,
        result,
        [
          `Every human socket must receive every message exactly once; latency is sampled on ${s.latencySockets} of them. ` +
            `Open loops at ${TARGET_DELIVERIES.toLocaleString('en-US')}, then 200,000... deliveries/s, until one falls behind; deliveries/s is the highest kept up with. ` +
            "Each report also updates the agent's `last_report`, so the dashboards get PRESENCE frames besides (not counted).",
        ],
      ),
      problems: seriesProblems(result),
    };
  },
});

// Targeted chat on the hub: agents send CHAT to humans (round-robin), every frame stored before it is
// delivered. The most it sustains (best closed loop), and latency at fixed open-loop rates.
import { connectRig, disconnectRig, highestKeptUp, maxSustained, openRow, runSeries, seriesProblems } from '../phases/load.js';
import { targetedSettings } from '../phases/targeted.js';
import { createCast, HubApi } from '../lib/api.js';
import { markdownSection } from '../lib/report.js';
import { defineScenario } from '../lib/scenario.js';
import { ADMIN } from '../lib/servers.js';

export default defineScenario({
  key: 'targeted',
  title: 'Targeted chat (agents → humans), stored',
  order: 10,
  settings: (plan) => targetedSettings(plan, [1_000, 5_000, 10_000]),
  async run(ctx, s) {
    const hub = await ctx.startHub('targeted', await ctx.newStore('targeted'));
    const api = new HubApi(hub.baseUrl);
    const { token } = await api.login(ADMIN.username, ADMIN.password);
    const cast = await createCast(api, token, 'bench', s.humans, s.agents);
    ctx.log(`hub: ${cast.humans.length} members and ${cast.agents.length} agents ready`);
    const rig = await connectRig(ctx, hub, {
      receiverUrls: cast.humans.map((h) => hub.socketUrl(h.token)),
      senderUrls: cast.agents.map((a) => hub.socketUrl(a.api_token)),
      send: { frame: 'chat', targets: cast.humans.map((h) => h.id) },
    });
    const result = await runSeries(rig, 'hub', s, ctx.log);
    await disconnectRig(rig);
    await ctx.stopHub(hub, result.window, 'the reported targeted runs');
    const best = maxSustained(result.rows);
    const p99At = (rate: number) => openRow(result.rows, rate)?.latency.p99 ?? null;
    return {
      summary: {
        msgPerSec: best?.messageRate ?? null,
        p99MsAt1k: p99At(1_000),
        p99MsAt5k: p99At(5_000),
        p99MsAt10k: p99At(10_000),
        p50MsAt5k: openRow(result.rows, 5_000)?.latency.p50 ?? null,
        openLoopKeptUpMsgPerSec: highestKeptUp(result.rows)?.messageRate ?? null,
      },
      details: { warmup: result.warmup, runs: result.rows },
      markdown: markdownSection(`Targeted CHAT on the hub, stored (${s.agents} agents → ${s.humans} humans, ${s.payloadBytes}-byte text)`, result, [
        "Latency: sender's send call → CHAT received at the human socket. msg/s counts receipts after the ramp of each run. " +
          'The most the hub sustains is its best closed loop (at most `window` frames unacknowledged per agent, so no backlog can build).',
      ]),
      problems: seriesProblems(result),
    };
  },
});

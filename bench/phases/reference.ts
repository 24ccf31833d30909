// Targeted chat through a reference server (the raw uWS relay or the Socket.IO relay) with the same
// senders, receivers and load as the hub's targeted scenario. The references trust a user id in the
// URL, so no users are set up: receivers are ids 1..H, senders from 1001.
import { markdownSection } from '../lib/report.js';
import type { ScenarioContext, ScenarioReport } from '../lib/scenario.js';
import type { Server } from '../lib/servers.js';
import { connectRig, disconnectRig, maxSustained, openRow, runSeries, seriesProblems } from './load.js';
import type { TargetedSettings } from './targeted.js';

export async function runReference(ctx: ScenarioContext, start: () => Promise<Server>, s: TargetedSettings, heading: string): Promise<ScenarioReport> {
  const server = await ctx.track(start());
  const humans = Array.from({ length: s.humans }, (_, i) => i + 1);
  const agents = Array.from({ length: s.agents }, (_, i) => i + 1001);
  const rig = await connectRig(ctx, server, {
    receiverUrls: humans.map((id) => server.socketUrl(id)),
    senderUrls: agents.map((id) => server.socketUrl(id)),
    send: { frame: 'chat', targets: humans },
  });
  const result = await runSeries(rig, server.kind, s, ctx.log);
  await disconnectRig(rig);
  const best = maxSustained(result.rows);
  return {
    summary: { msgPerSec: best?.messageRate ?? null, p99MsAt5k: openRow(result.rows, 5_000)?.latency.p99 ?? null },
    details: { warmup: result.warmup, runs: result.rows },
    markdown: markdownSection(heading, result),
    problems: seriesProblems(result),
  };
}

// Cluster mode against one node, in the same run and on the same PostgreSQL: agents on node 1,
// humans on node 2, targeted CHAT stored (every frame crosses the Redis bus); the same load on a
// single node for comparison. Both share this machine's two cores with PostgreSQL, Redis and the
// generators, so the ratio measures what the bus costs rather than what a second machine would add.
// CPU per message is every hub process's CPU over the series divided by the messages sent; the
// bus's share is the cluster's figure minus the single node's. Then dashboards spread over the two
// nodes take a fan-out.
import { randomBytes } from 'node:crypto';
import { connectRig, disconnectRig, highestKeptUp, maxSustained, openRow, runSeries, seriesProblems, type SeriesResult } from '../phases/load.js';
import { targetedSettings, type TargetedSettings } from '../phases/targeted.js';
import { createCast, HubApi } from '../lib/api.js';
import { pick } from '../lib/plan.js';
import { CpuMeter } from '../lib/procfs.js';
import { markdownSection } from '../lib/report.js';
import { defineScenario } from '../lib/scenario.js';
import { ADMIN, type Hub } from '../lib/servers.js';
import { postgresStores } from '../lib/stores.js';

interface ClusterSettings extends TargetedSettings {
  redisUrl: string;
  /** Dashboards (human sockets) for the fan-out, half on each node. */
  dashboards: number;
  fanoutRates: number[];
}

/** CPU-ms of `hubs` per message over a series. */
async function measured(hubs: Hub[], run: () => Promise<SeriesResult>): Promise<{ result: SeriesResult; cpuMsPerMessage: number }> {
  const meters = hubs.map((h) => new CpuMeter(h.pid));
  const started = performance.now();
  const result = await run();
  const wall = performance.now() - started;
  const cpuMs = meters.reduce((sum, m) => sum + (m.percent() / 100) * wall, 0);
  const messages = [result.warmup, ...result.rows].reduce((n, r) => n + r.sent, 0);
  return { result, cpuMsPerMessage: messages > 0 ? cpuMs / messages : 0 };
}

export default defineScenario({
  key: 'cluster',
  title: 'Cluster mode: two nodes on PostgreSQL and Redis against one',
  order: 60,
  settings(plan): ClusterSettings {
    return {
      ...targetedSettings(plan, pick(plan, [5_000], [1_000, 5_000])),
      windows: plan.windows ?? [256],
      closedMs: pick(plan, 2_000, 15_000),
      openMs: pick(plan, 1_500, 10_000),
      redisUrl: process.env['BENCH_REDIS_URL'] ?? process.env['TEST_REDIS_URL'] ?? 'redis://127.0.0.1:6379',
      dashboards: 200,
      fanoutRates: pick(plan, [500], [500, 1_000, 2_000]),
    };
  },
  async run(ctx, s) {
    const stores = await postgresStores(ctx.plan.pgUrl);
    const problems: string[] = [];
    try {
      const cast = async (hub: Hub, prefix: string, humans = s.humans, agents = s.agents) => {
        const api = new HubApi(hub.baseUrl);
        const { token } = await api.login(ADMIN.username, ADMIN.password);
        return createCast(api, token, prefix, humans, agents);
      };
      const targeted = async (senders: Hub, receivers: Hub, kind: string) => {
        const people = await cast(senders, kind);
        const rig = await connectRig(ctx, senders, {
          receiverUrls: people.humans.map((h) => receivers.socketUrl(h.token)),
          senderUrls: people.agents.map((a) => senders.socketUrl(a.api_token)),
          send: { frame: 'chat', targets: people.humans.map((h) => h.id) },
        });
        return { rig, run: () => runSeries(rig, kind, s, ctx.log) };
      };

      // One node on PostgreSQL: the reference.
      const single = await ctx.startHub('cluster-single', await stores.create('single'));
      const one = await targeted(single, single, 'single');
      const alone = await measured([single], one.run);
      await disconnectRig(one.rig);
      await ctx.stopHub(single, alone.result.window, 'the single-node runs');

      // Two nodes on one database and one Redis.
      const store = await stores.create('cluster');
      const clusterEnv = (node: string) => ({ REDIS_URL: s.redisUrl, NODE_ID: node, CLUSTER_NAME: `bench-${randomBytes(3).toString('hex')}` });
      const name = clusterEnv('n1').CLUSTER_NAME;
      const n1 = await ctx.startHub('cluster-n1', store, { ...clusterEnv('n1'), CLUSTER_NAME: name });
      const n2 = await ctx.startHub('cluster-n2', store, { ...clusterEnv('n2'), CLUSTER_NAME: name });
      const two = await targeted(n1, n2, 'cluster');
      const both = await measured([n1, n2], two.run);
      await disconnectRig(two.rig);

      // Fan-out: dashboards half on each node, reports from agents on node 1.
      const fanCast = await cast(n1, 'clfan', 20, 20);
      const dashboards = Array.from({ length: s.dashboards }, (_, i) => (i % 2 === 0 ? n1 : n2).socketUrl(fanCast.humans[i % fanCast.humans.length]!.token));
      const fanRig = await connectRig(ctx, n1, {
        receiverUrls: dashboards,
        senderUrls: fanCast.agents.map((a) => n1.socketUrl(a.api_token)),
        send: { frame: 'log' },
        latencySockets: 10,
      });
      const fan = await runSeries(
        fanRig,
        'clfan',
        { ...s, warmupRate: s.fanoutRates[0]! / 2, openRates: s.fanoutRates, windows: [], closedMs: 0, stopWhenBehind: true },
        ctx.log,
      );
      await disconnectRig(fanRig);
      await ctx.stopHub(n1, both.result.window, 'the cluster runs (node 1)');
      await ctx.stopHub(n2, both.result.window, 'the cluster runs (node 2)');

      const bestAlone = maxSustained(alone.result.rows)?.messageRate ?? null;
      const bestTwo = maxSustained(both.result.rows)?.messageRate ?? null;
      const fanBest = highestKeptUp(fan.rows);
      problems.push(
        ...seriesProblems(alone.result).map((p) => `single: ${p}`),
        ...seriesProblems(both.result),
        ...seriesProblems(fan).map((p) => `fan-out: ${p}`),
      );
      const ratio = bestAlone && bestTwo ? bestTwo / bestAlone : null;
      const busUs = (both.cpuMsPerMessage - alone.cpuMsPerMessage) * 1000;
      return {
        summary: {
          singleMsgPerSec: bestAlone,
          clusterMsgPerSec: bestTwo,
          clusterToSingle: ratio,
          p99MsAt5kSingle: openRow(alone.result.rows, 5_000)?.latency.p99 ?? null,
          p99MsAt5kCluster: openRow(both.result.rows, 5_000)?.latency.p99 ?? null,
          hubCpuUsPerMessageSingle: alone.cpuMsPerMessage * 1000,
          hubCpuUsPerMessageCluster: both.cpuMsPerMessage * 1000,
          busCpuUsPerMessage: busUs,
          fanoutDeliveriesPerSec: fanBest?.deliveredRate ?? null,
        },
        details: { single: alone, cluster: both, fanout: fan },
        markdown: [
          ...markdownSection(`Cluster: targeted CHAT, agents on node 1 → humans on node 2 (PostgreSQL + Redis)`, both.result, [
            `Against one node on PostgreSQL with the same load in this run: ${bestTwo?.toFixed(0) ?? '—'} vs ${bestAlone?.toFixed(0) ?? '—'} msg/s sustained ` +
              `(${ratio?.toFixed(2) ?? '—'}×). Hub CPU per message: ${(alone.cpuMsPerMessage * 1000).toFixed(0)} µs on one node, ` +
              `${(both.cpuMsPerMessage * 1000).toFixed(0)} µs over both nodes; the bus's share ≈ ${busUs.toFixed(0)} µs per message. ` +
              'Both nodes, PostgreSQL, Redis and the generators share two cores.',
          ]),
          ...markdownSection(`Cluster: dashboard fan-out to ${s.dashboards} sockets spread over two nodes`, fan, [
            `Reports from agents on node 1, SYSTEM_LOG stored; half the dashboards on each node. Deliveries/s kept up: ${fanBest?.deliveredRate.toFixed(0) ?? '—'}.`,
          ]),
        ],
        problems,
      };
    } finally {
      await stores.dispose();
    }
  },
});

// Reconnect storm: thousands of agents connected, the hub killed with kill -9 and restarted on the
// same port; every agent must come back (no refused upgrade), announce itself (ACKed) within a few
// seconds of the hub listening (the client's backoff is capped at 5 s: this measures it), and the
// hub's presence must say who is online and, once some leave, who is not. On PostgreSQL a second
// storm meets a hub whose store is a slow link away with a short DB_CONNECT_TIMEOUT: one query per
// credential check held all 10 pool connections there, and upgrades waiting past the timeout were
// refused with 503 (the lookups asked together must go as one query).
import { HubApi, registerAgents } from '../../bench/lib/api.js';
import { pick } from '../../bench/lib/plan.js';
import { ADMIN, type Hub } from '../../bench/lib/servers.js';
import { int } from '../../bench/lib/stats.js';
import type { Generator } from '../../bench/lib/spawn.js';
import type { ScratchStore } from '../../bench/lib/stores.js';
import { startTcpProxy } from '../../test/helpers/tcpProxy.js';
import { defineCheck, type ChaosContext } from '../lib/check.js';
import { sleep, until } from '../lib/poll.js';
import { describeCloses } from '../lib/closes.js';
import { presenceOf } from '../lib/presence.js';
import { atMost, equals, info, type Verdict } from '../lib/verdict.js';
import type { StormStatus } from '../gen/storm.js';

interface StormSettings {
  agents: number;
  backTimeoutMs: number;
  backBoundMs: number;
  leaving: number;
  presenceTimeoutMs: number;
  slowLink: { delayMs: number; connectTimeout: string; backBoundMs: number };
}

/** What one kill -9 and restart cost: the times and the failures counted by the generator during it. */
interface Round {
  hub: Hub;
  announced: number;
  backMs: number;
  halfMs: number;
  downMs: number;
  refused: string;
  connRefused: number;
  otherFailures: number;
  failedWhileDown: number;
}

/** Kills the hub with SIGKILL, restarts it on the same port with `env`, and waits for every agent to be back. */
async function stormRound(ctx: ChaosContext, s: StormSettings, gen: Generator, hub: Hub, store: ScratchStore, env: Record<string, string>): Promise<Round> {
  const before = await gen.call<StormStatus>('hubUp', { up: false }, 10_000);
  await hub.kill('SIGKILL');
  const killedAt = performance.now();
  const next = await ctx.hub('storm', store, env, hub.port);
  const listeningAt = performance.now();
  await gen.call('hubUp', { up: true }, 10_000);
  const { ms: halfMs } = await until<StormStatus>(gen, (st) => st.announced >= s.agents / 2, s.backTimeoutMs);
  const { status: back, ms: restMs } = await until<StormStatus>(gen, (st) => st.announced === s.agents, s.backTimeoutMs);
  const refused =
    Object.entries(back.refusedUpgrades)
      .map(([code, n]) => [code, n - (before.refusedUpgrades[code] ?? 0)] as const)
      .filter(([, n]) => n > 0)
      .map(([code, n]) => `HTTP ${code} × ${n}`)
      .join(', ') || 'none';
  return {
    hub: next,
    announced: back.announced,
    backMs: halfMs + restMs,
    halfMs,
    downMs: listeningAt - killedAt,
    refused,
    connRefused: back.connRefused - before.connRefused,
    otherFailures: back.otherFailures - before.otherFailures,
    failedWhileDown: back.failedWhileDown - before.failedWhileDown,
  };
}

/** The verdicts of one round; `label` tells the rounds apart in the table. */
const roundVerdicts = (label: string, r: Round, agents: number, boundMs: number): Verdict[] => [
  equals(`${label}agents back and announced (ACKed) after the restart`, r.announced, agents),
  atMost(`${label}time from the hub listening to the last agent back and announced`, r.backMs / 1000, boundMs / 1000, ' s'),
  info(`${label}time from the hub listening to half of them back`, `${(r.halfMs / 1000).toFixed(1)} s`),
  info(`${label}time from kill -9 to the hub listening again`, `${(r.downMs / 1000).toFixed(1)} s`),
  equals(`${label}upgrades refused once the hub listened (HTTP status)`, r.refused, 'none'),
  equals(`${label}TCP connections refused once the hub listened`, r.connRefused, 0),
  equals(`${label}connection attempts failed otherwise once the hub listened`, r.otherFailures, 0),
  info(`${label}connection attempts while the hub was down (refused, reset)`, int(r.failedWhileDown)),
];

export default defineCheck({
  key: 'storm',
  title: 'reconnect storm of thousands of agents after kill -9',
  order: 30,
  settings: (plan): StormSettings => ({
    agents: pick(plan, 500, 5_000),
    backTimeoutMs: pick(plan, 30_000, 120_000),
    // "Within a few seconds": the client's longest wait (5 s by default) plus a few for the hub to take
    // the storm. Fixed here, not read from the client, so a longer cap fails the check.
    backBoundMs: pick(plan, 8_000, 10_000),
    leaving: pick(plan, 50, 500),
    presenceTimeoutMs: 15_000,
    // PostgreSQL only. Every query on the slow link takes at least delayMs, so the pool's 10 connections
    // serve at most 10 / delayMs one-key lookups a second: fewer than the storm asks for, so without
    // the batching upgrades wait for a free connection past DB_CONNECT_TIMEOUT. A new connection needs
    // two round trips to answer, which must fit in DB_CONNECT_TIMEOUT, or the hub's silence check
    // (a new connection that does not answer in time) fails every waiting query.
    slowLink: { delayMs: pick(plan, 150, 50), connectTimeout: pick(plan, '500ms', '250ms'), backBoundMs: pick(plan, 10_000, 12_000) },
  }),
  async run(ctx, s) {
    const store = await ctx.newStore('storm');
    let hub = await ctx.hub('storm', store);
    const api = new HubApi(hub.baseUrl);
    const { token: adminToken } = await api.login(ADMIN.username, ADMIN.password);
    ctx.log(`storm: registering ${s.agents} agents`);
    const agents = await registerAgents(api, adminToken, 'storm', s.agents);
    for (const a of agents) ctx.secrets.add('api_token', a.api_token);
    const gen = await ctx.generator('storm', 'chaos/gen/storm.ts');
    await gen.call<StormStatus>('connect', { urls: agents.map((a) => hub.socketUrl(a.api_token)), concurrency: 64 }, 300_000);
    const first = await until<StormStatus>(gen, (st) => st.announced === s.agents, s.backTimeoutMs);
    ctx.log(`storm: ${first.status.announced} agents connected and announced; kill -9 to the hub`);

    const storm = await stormRound(ctx, s, gen, hub, store, {});
    hub = storm.hub;
    ctx.log(
      `storm: ${storm.announced}/${s.agents} back and announced ${Math.round(storm.backMs)} ms after the hub listened (half after ${Math.round(storm.halfMs)} ms)`,
    );

    let slow: Round | undefined;
    if (ctx.plan.store === 'postgres') {
      const direct = new URL(store.env['DATABASE_URL']!);
      const proxy = await startTcpProxy({ host: direct.hostname, port: Number(direct.port || 5432) }, { delayMs: s.slowLink.delayMs });
      // Closed once the hub is stopped, so the hub never loses its store mid-check.
      ctx.afterStop(() => proxy.close());
      ctx.log(`storm: kill -9 again; the hub comes back with PostgreSQL ${s.slowLink.delayMs} ms away and DB_CONNECT_TIMEOUT=${s.slowLink.connectTimeout}`);
      slow = await stormRound(ctx, s, gen, hub, store, { DATABASE_URL: proxy.via(direct.toString()), DB_CONNECT_TIMEOUT: s.slowLink.connectTimeout });
      hub = slow.hub;
      ctx.log(`storm: slow link: ${slow.announced}/${s.agents} back ${Math.round(slow.backMs)} ms after the hub listened; upgrades refused: ${slow.refused}`);
    }
    const { token } = await api.login(ADMIN.username, ADMIN.password);
    const online = await presenceOf(hub.baseUrl, token);
    const notOnline = agents.filter((a) => online.get(a.id) !== true).length;

    // Some leave cleanly: presence must follow within the bound, and the others stay online.
    const leaving = agents.slice(0, s.leaving);
    await gen.call('leave', { indices: leaving.map((_, i) => i) }, 30_000);
    const leftAt = performance.now();
    let after = await presenceOf(hub.baseUrl, token);
    while (leaving.some((a) => after.get(a.id) !== false) && performance.now() - leftAt < s.presenceTimeoutMs) {
      await sleep(200);
      after = await presenceOf(hub.baseUrl, token);
    }
    const stillOnline = leaving.filter((a) => after.get(a.id) !== false).length;
    const staying = agents.slice(s.leaving).filter((a) => after.get(a.id) !== true).length;
    const end = await gen.call<StormStatus>('status', {}, 10_000);
    await gen.call('disconnect', {}, 10_000);

    const slowLink = slow
      ? ` On PostgreSQL the hub is then killed again and restarted with its store behind a TCP proxy that delays every query ${s.slowLink.delayMs} ms and DB_CONNECT_TIMEOUT=${s.slowLink.connectTimeout} ("slow link" rows): the pool's 10 connections cannot take the storm one credential check at a time.`
      : '';
    return {
      measured: `${int(s.agents)} agents hold a socket each (one generator process, 127.0.0.1) and announce themselves with an acknowledged SYSTEM_LOG; the hub is killed with SIGKILL and restarted on the same port; every agent waits between tries as the client does by default (0.5 s doubling to a 5 s cap, each wait a random part of that).${slowLink} Then GET /api/users/agents/status as admin, and ${s.leaving} agents close cleanly.`,
      verdicts: [
        equals('agents connected and announced before the kill', first.status.announced, s.agents),
        ...roundVerdicts('', storm, s.agents, s.backBoundMs),
        ...(slow ? roundVerdicts('slow link: ', slow, s.agents, s.slowLink.backBoundMs) : []),
        equals('agents the hub did not list online right after the storm', notOnline, 0),
        equals(`agents still listed online ${s.presenceTimeoutMs / 1000} s after closing cleanly`, stillOnline, 0),
        equals('agents that stayed but were not listed online', staying, 0),
        info('close codes the agents saw', describeCloses(end.closes)),
      ],
      notes: end.otherSamples.length > 0 ? [`Other connection failures, e.g.: ${end.otherSamples.join('; ')}`] : [],
    };
  },
});

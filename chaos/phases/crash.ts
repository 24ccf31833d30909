// A hub under a closed-loop load is stopped by a signal (kill -9, or SIGTERM), restarted on the same
// store and port, and the clients carry on: agents resend what was not acknowledged, humans resume.
// Then the evidence: the ACK ledger against the stored rows, resends of acknowledged frames, and what
// each human received. Shared by the crash and sigterm checks.
import type { Exit, Hub } from '../../bench/lib/servers.js';
import { int } from '../../bench/lib/stats.js';
import type { ChaosContext } from '../lib/check.js';
import { sleep, until } from '../lib/poll.js';
import { crew } from '../lib/cast.js';
import { count, describeCloses } from '../lib/closes.js';
import { storedByLocalId } from '../lib/storeReader.js';
import { atMost, equals, holds, info, type Verdict } from '../lib/verdict.js';
import type { AckersDrainResult, AckersStatus, HumansResult, Ledger, ResendResult } from '../gen/protocol.js';

export interface CrashSettings {
  signal: 'SIGKILL' | 'SIGTERM';
  rounds: number;
  agents: number;
  humans: number;
  window: number;
  roundMs: number;
  payloadBytes: number;
  /** ACKed frames each agent sends again at the end, to see them deduplicated. */
  resendPerAgent: number;
  /** How long the hub may take to exit on SIGTERM, and the clients to come back. */
  exitTimeoutMs: number;
  backTimeoutMs: number;
}

interface Round {
  ackedBefore: number;
  exit: Exit;
  exitMs: number;
  backMs: number;
}

async function stopBy(hub: Hub, signal: CrashSettings['signal'], timeoutMs: number): Promise<{ exit: Exit; ms: number }> {
  const t0 = performance.now();
  const exit = hub.kill(signal);
  const late = setTimeout(() => void hub.kill('SIGKILL'), timeoutMs);
  const result = await exit;
  clearTimeout(late);
  return { exit: result, ms: performance.now() - t0 };
}

export async function crashRounds(ctx: ChaosContext, key: string, s: CrashSettings): Promise<{ verdicts: Verdict[]; notes: string[] }> {
  const store = await ctx.newStore(key);
  let hub = await ctx.hub(key, store);
  const cast = await crew(ctx, hub, key, s.humans, s.agents);
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
  const tag = `${key}${Date.now().toString(36)}`;
  await gen.call('start', { tag, window: s.window, payloadBytes: s.payloadBytes, maxPerAgent: Math.ceil(2_000_000 / s.agents) }, 10_000);

  const rounds: Round[] = [];
  for (let r = 1; r <= s.rounds; r++) {
    await sleep(s.roundMs);
    const before = await gen.call<AckersStatus>('status', {}, 10_000);
    ctx.log(`${key}: round ${r}: ${int(before.acked)} frames acknowledged so far; ${s.signal} to the hub`);
    const stopped = await stopBy(hub, s.signal, s.exitTimeoutMs);
    hub = await ctx.hub(key, store, {}, hub.port);
    const back = await until<AckersStatus>(gen, (st) => st.agentsOpen === s.agents && st.humansOpen === s.humans, s.backTimeoutMs);
    ctx.log(
      `${key}: round ${r}: exit ${stopped.exit.signal ?? stopped.exit.code} after ${Math.round(stopped.ms)} ms; ${back.status.agentsOpen}/${s.agents} agents back after ${Math.round(back.ms)} ms`,
    );
    rounds.push({ ackedBefore: before.acked, exit: stopped.exit, exitMs: stopped.ms, backMs: back.ms });
  }
  await sleep(s.roundMs / 2);
  const drained = await gen.call<AckersDrainResult>('drain', { timeoutMs: 30_000 }, 40_000);
  const resend = await gen.call<ResendResult>('resendAcked', { perAgent: s.resendPerAgent, timeoutMs: 15_000 }, 20_000);
  const seen = await gen.call<HumansResult>('humans', { timeoutMs: 15_000 }, 20_000);
  const ledger = await gen.call<Ledger>('ledger', {}, 60_000);
  await gen.call('disconnect', {}, 10_000);
  await ctx.stopHub(hub);
  const stored = await storedByLocalId(store, `${tag}.`);

  // The ledger against the table: each acknowledged local_id stored once, under the id its ACK gave.
  const rowsByLocalId = new Map<string, number[]>();
  for (const row of stored) rowsByLocalId.set(row.local_id!, [...(rowsByLocalId.get(row.local_id!) ?? []), row.id]);
  let missing = 0;
  let wrongId = 0;
  const samples: string[] = [];
  for (const [localId, id] of ledger.acked) {
    const ids = rowsByLocalId.get(localId);
    if (!ids) missing++;
    else if (!ids.includes(id)) wrongId++;
    else continue;
    if (samples.length < 5) samples.push(`${localId}: ACK id ${id}, stored ${ids?.join('/') ?? 'nothing'}`);
  }
  const storedTwice = [...rowsByLocalId.values()].filter((ids) => ids.length > 1).length;
  const ackedSet = new Set(ledger.acked.map(([l]) => l));
  const storedNeverAcked = [...rowsByLocalId.keys()].filter((l) => !ackedSet.has(l)).length;
  const unexplained = s.signal === 'SIGKILL' ? 0 : count(drained.closes, 1006);

  const verdicts: Verdict[] = [
    info(
      'frames acknowledged (ACKs recorded)',
      `${int(ledger.acked.length)} of ${int(ledger.sent)} sent; before each ${s.signal}: ${rounds.map((r) => int(r.ackedBefore)).join(' / ')}`,
    ),
    equals('acknowledged frames missing from the store', missing, 0),
    equals('acknowledged frames stored under another id than their ACK said', wrongId, 0),
    equals('frames stored more than once', storedTwice, 0),
    equals('frames still unacknowledged after the drain (lost)', drained.unacked, 0),
    equals('stored frames whose ACK never came', storedNeverAcked, 0),
    holds(
      'acknowledged frames resent: answered with their first id',
      resend.sameId === resend.resent && resend.resent > 0,
      `${int(resend.sameId)} of ${int(resend.resent)} (other id ${resend.differentId}, no answer ${resend.unanswered})`,
      'all',
    ),
    equals('acknowledged frames a human never received (live or on resume)', seen.missing, 0),
    equals('frames a human received twice', seen.duplicates, 0),
    equals('frames a human received out of order', seen.outOfOrder, 0),
    info('human resumes (reconnects with since)', int(seen.resumes)),
    equals('ERROR frames to the agents', drained.errors, 0),
    atMost('slowest return of every client after a restart', Math.max(...rounds.map((r) => r.backMs)) / 1000, s.backTimeoutMs / 1000, ' s'),
    info('close codes the clients saw', describeCloses(drained.closes)),
  ];
  if (s.signal === 'SIGTERM') {
    verdicts.push(
      holds(
        'hub exit on SIGTERM',
        rounds.every((r) => r.exit.code === 0 && r.exit.signal === null),
        rounds.map((r) => `code ${r.exit.code}${r.exit.signal ? `, signal ${r.exit.signal}` : ''}`).join(' / '),
        'code 0',
      ),
      atMost('time from SIGTERM to exit', Math.max(...rounds.map((r) => r.exitMs)) / 1000, s.exitTimeoutMs / 1000, ' s'),
      equals('unexplained closes (1006) during a clean shutdown', unexplained, 0),
    );
  }
  const notes = [
    ...(samples.length > 0 ? [`Ledger mismatches, e.g.: ${samples.join('; ')}.`] : []),
    ...(seen.samples.length > 0 ? [`Never received by their human, e.g.: ${seen.samples.join('; ')}. Connections: ${seen.connections.join('; ')}.`] : []),
    ...(drained.errorSamples.length > 0 ? [`ERROR frames, e.g.: \`${drained.errorSamples.join('` `')}\``] : []),
  ];
  return { verdicts, notes };
}

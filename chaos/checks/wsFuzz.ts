// WebSocket fuzz: sessions of hostile frames of every kind from agents and humans, while a
// well-behaved agent keeps chatting to a human through the same hub. Every frame must get its
// answer (ERROR, or ACK where acceptable), no hostile frame may be stored as sent, closes must carry
// the documented codes, and floods past the rate limit must not lose ACKs of what was stored.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pick } from '../../bench/lib/plan.js';
import { int, ms } from '../../bench/lib/stats.js';
import { connectRig, disconnectRig, runLoad } from '../../bench/phases/load.js';
import { crew } from '../lib/cast.js';
import { defineCheck } from '../lib/check.js';
import { storedByContent, storedByLocalId } from '../lib/storeReader.js';
import { atLeast, equals, info } from '../lib/verdict.js';
import type { FloodResult, FuzzParams, FuzzResult } from '../gen/wsFuzz.js';

const MAX_FRAME_BYTES = 1024 * 1024;
const sum = (m: Record<string, number>) => Object.values(m).reduce((a, b) => a + b, 0);
const list = (m: Record<string, number>) =>
  Object.entries(m)
    .sort(([, a], [, b]) => b - a)
    .map(([k, n]) => `${k} × ${int(n)}`)
    .join(', ') || 'none';
/** Closes the hub made that its contract does not explain: a dropped connection, or an internal error. */
const unexplained = (closes: Record<string, number>, explained: Record<string, number>) =>
  sum(
    Object.fromEntries(
      Object.entries(closes)
        .filter(([k]) => / → (1006|1011|1005)$/.test(k))
        .map(([k, n]) => [k, Math.max(0, n - (explained[k] ?? 0))]),
    ),
  );
const UTF8_DROP = 'invalid UTF-8 → 1006';

export default defineCheck({
  key: 'wsFuzz',
  title: 'WebSocket fuzz with a well-behaved client alongside',
  order: 50,
  settings: (plan) => ({
    frames: pick(plan, 20_000, 200_000),
    durationMs: pick(plan, 45_000, 240_000),
    concurrency: 24,
    framesPerSession: 24,
    utf8Every: 10,
    largeEvery: pick(plan, 60, 200),
    agents: 12,
    humans: 6,
    floods: pick(plan, 2, 5),
    floodFrames: 3_000,
    wellBehavedRate: 50,
  }),
  async run(ctx, s) {
    const store = await ctx.newStore('wsfuzz');
    const hub = await ctx.hub('wsfuzz', store);
    const cast = await crew(ctx, hub, 'wsfuzz', s.humans + 2, s.agents + 1);
    const [victim, watcher, ...humans] = cast.humans;
    const [polite, ...agents] = cast.agents;
    // A thread that belongs to the victim: no one else may write into it.
    const thread = (await fetch(`${hub.baseUrl}/api/chat/threads`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${victim!.token}` },
      body: JSON.stringify({ peer_id: agents[0]!.id, channel_kind: 'agent_direct', title: 'victim' }),
    }).then((r) => r.json())) as { id: number };

    const rig = await connectRig(ctx, hub, {
      receiverUrls: [hub.socketUrl(watcher!.token)],
      senderUrls: [hub.socketUrl(polite!.api_token)],
      send: { frame: 'chat', targets: [watcher!.id] },
    });
    const fuzzers = await Promise.all([ctx.generator('fuzz', 'chaos/gen/wsFuzz.ts'), ctx.generator('flood', 'chaos/gen/wsFuzz.ts')]);
    const answersFile = join(ctx.answersDir, 'ws-fuzz.txt');
    writeFileSync(answersFile, '');
    // Beside the hub's log, not in answers/ (which holds only what the hub answered).
    const traceFile = join(ctx.workDir, 'wsfuzz', 'unanswered-sessions.txt');
    const params: FuzzParams = {
      identities: [
        ...agents.map((a) => ({ role: 'agent' as const, name: a.username, url: hub.socketUrl(a.api_token) })),
        ...humans.map((h) => ({ role: 'human' as const, name: h.username, url: hub.socketUrl(h.token) })),
      ],
      victims: { threadId: thread.id, nobody: 999_999_999 },
      maxFrameBytes: MAX_FRAME_BYTES,
      frames: s.frames,
      durationMs: s.durationMs,
      concurrency: s.concurrency,
      framesPerSession: s.framesPerSession,
      utf8Every: s.utf8Every,
      largeEvery: s.largeEvery,
      answersFile,
      traceFile,
    };
    ctx.log(`wsFuzz: ${int(s.frames)} hostile frames (at most ${s.durationMs / 1000} s), a well-behaved agent at ${s.wellBehavedRate}/s meanwhile`);
    const floodTag = `flood${Date.now().toString(36)}`;
    const floods = (async () => {
      const out: FloodResult[] = [];
      for (let i = 0; i < s.floods; i++)
        out.push(
          await fuzzers[1].call<FloodResult>(
            'flood',
            { url: hub.socketUrl(agents[i % agents.length]!.api_token), tag: `${floodTag}-${i}`, count: s.floodFrames },
            60_000,
          ),
        );
      return out;
    })();
    const [fuzz, polite_, flooded] = await Promise.all([
      fuzzers[0].call<FuzzResult>('fuzz', params, s.durationMs + 60_000),
      runLoad(
        rig,
        {
          label: 'well-behaved',
          tag: `polite${Date.now().toString(36)}`,
          mode: { kind: 'open', rate: s.wellBehavedRate },
          durationMs: s.durationMs,
          rampMs: 0,
          drainMs: 15_000,
          payloadBytes: 100,
        },
        ctx.log,
      ),
      floods,
    ]);
    await disconnectRig(rig);
    const alive =
      hub.alive() &&
      (await fetch(`${hub.baseUrl}/api/ping`).then(
        (r) => r.ok,
        () => false,
      ));

    // What the store holds of the fuzz: spoofed senders must carry their real identity, the victim's thread nothing.
    const spoofed = await storedByContent(store, 'fuzz-spoof');
    const fuzzIds = new Set([...agents, ...humans].map((u) => u.id));
    const wrongSender = spoofed.filter((r) => !fuzzIds.has(r.sender_id)).length;
    const inVictimThread = (await storedByContent(store, 'fuzz-')).filter((r) => r.conversation_id === thread.id).length;
    let storedNotAcked = 0;
    for (const [i, f] of flooded.entries()) {
      const acked = new Set(f.acked);
      storedNotAcked += (await storedByLocalId(store, `${floodTag}-${i}.`)).filter((r) => !acked.has(r.local_id!)).length;
    }
    const floodCloses = flooded.map((f) => f.closeCode ?? 'open').join(', ');
    // uWS fails a connection with invalid UTF-8 itself (no close frame); the hub logs each with its cause.
    const utf8Logged = readFileSync(ctx.hubLog('wsfuzz'), 'utf8')
      .split('\n')
      .filter((line) => line.includes('the transport dropped the connection: Received invalid UTF-8')).length;
    const utf8Dropped = fuzz.closesByKind[UTF8_DROP] ?? 0;
    const tooFew = fuzz.frames < s.frames;
    return {
      measured:
        `${int(fuzz.sessions)} sessions (one connection each, ${agents.length} agents and ${humans.length} humans, ${s.concurrency} at a time) sent ${int(fuzz.frames)} hostile frames: ${list(fuzz.framesByKind)}. ` +
        `Meanwhile an agent sent CHAT at ${s.wellBehavedRate}/s to a human, and ${s.floods} agents each sent ${int(s.floodFrames)} SYSTEM_LOG frames at once (past WS_RATE_BURST). Afterwards the messages table was read.`,
      verdicts: [
        atLeast('hostile frames sent', fuzz.frames, s.frames),
        equals('frames that got no answer while their connection stayed open', sum(fuzz.unansweredByKind), 0),
        equals('frames left unanswered by a close that answers first (1009, 4008, 4010)', sum(fuzz.closedUnansweredByKind), 0),
        equals('frames that must be refused but were ACKed', sum(fuzz.wronglyAcceptedByKind), 0),
        equals('connection-ending frames without their close code (or an ERROR)', sum(fuzz.wrongCloseByKind), 0),
        equals(
          'invalid UTF-8 connections dropped by the transport (1006) that the hub logged with their cause',
          Math.min(utf8Logged, utf8Dropped),
          utf8Dropped,
        ),
        equals('unexplained closes (1006, 1011, 1005)', unexplained(fuzz.closesByKind, { [UTF8_DROP]: utf8Logged }), 0),
        info('closes by the frame sent last', list(fuzz.closesByKind)),
        info('ERROR frames by code', list(fuzz.errorCodes)),
        equals('fuzz connections refused', fuzz.connectFailures, 0),
        equals('spoofed frames stored under someone else', wrongSender, 0),
        equals("fuzz frames stored in another user's thread", inVictimThread, 0),
        info('floods: close codes', floodCloses),
        equals('flood frames stored whose ACK never came (closed for the rate limit)', storedNotAcked, 0),
        equals('well-behaved client: lost, duplicated, refused or closed', polite_.problems.length, 0),
        info('well-behaved client: sent, p99 / max ms', `${int(polite_.sent)}, ${ms(polite_.latency.p99)} / ${ms(polite_.latency.max)}`),
        equals('hub alive and answering at the end', alive ? 'yes' : 'no', 'yes'),
      ],
      notes: [
        ...(tooFew ? [`The fuzz stopped at its time bound (${s.durationMs / 1000} s) before ${int(s.frames)} frames.`] : []),
        ...(sum(fuzz.unansweredByKind) > 0 ? [`Unanswered on an open connection, by kind: ${list(fuzz.unansweredByKind)}.`] : []),
        ...(sum(fuzz.closedUnansweredByKind) > 0 ? [`Unanswered before the hub's close, by kind: ${list(fuzz.closedUnansweredByKind)}.`] : []),
        ...(sum(fuzz.unansweredByKind) + sum(fuzz.closedUnansweredByKind) > 0
          ? [`Of those, answered late (within 15 s more): ${list(fuzz.lateByKind)}. Timelines of those sessions: ${traceFile}.`]
          : []),
        ...(sum(fuzz.wronglyAcceptedByKind) > 0 ? [`Wrongly ACKed by kind: ${list(fuzz.wronglyAcceptedByKind)}.`] : []),
        ...(sum(fuzz.wrongCloseByKind) > 0 ? [`Without their close code, by kind: ${list(fuzz.wrongCloseByKind)}.`] : []),
        ...(fuzz.failureSamples.length > 0 ? [`Connection failures, e.g.: ${fuzz.failureSamples.join('; ')}`] : []),
        ...polite_.problems.map((p) => `- well-behaved: ${p}`),
      ],
    };
  },
});

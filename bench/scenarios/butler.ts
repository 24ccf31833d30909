// Butler under load: many conversations at once with a fake streaming model (a fixed delay per
// delta). Completed answers/s against the ideal (every conversation busy, the model the only
// wait), and the latency the hub adds per delta: model write → CHAT_STREAM at the asker, which
// includes Butler's coalescing window (BUTLER_STREAM_FLUSH_MS, 50 ms by default). The hub-wide cap
// on model calls (BUTLER_MAX_CONCURRENCY) is set to the number of conversations, so every
// conversation can be busy at once, as the ideal assumes.
import type { ButlerRunResult, FakeModelStats } from '../gen/protocol.js';
import { HubApi, createCast } from '../lib/api.js';
import { pick } from '../lib/plan.js';
import { usageAlign, usageCells, usageHeader } from '../lib/report.js';
import { defineScenario } from '../lib/scenario.js';
import { ADMIN } from '../lib/servers.js';
import { int, ms, percentiles, round } from '../lib/stats.js';
import { meterUsage } from '../lib/usage.js';

interface ButlerSettings {
  members: number;
  /** Concurrent conversations (threads with Butler), spread over the members. */
  conversations: number;
  deltas: number;
  deltaDelayMs: number;
  durationMs: number;
  drainMs: number;
}

export default defineScenario({
  key: 'butler',
  title: 'Butler: concurrent conversations with a fake streaming model',
  order: 55,
  settings: (plan): ButlerSettings => ({
    members: 20,
    conversations: pick(plan, 200, 1000),
    deltas: 20,
    deltaDelayMs: 20,
    durationMs: pick(plan, 4_000, 20_000),
    drainMs: 30_000,
  }),
  async run(ctx, s) {
    const model = await ctx.generator('model', 'bench/gen/fakeModel.ts');
    const { port } = await model.call<{ port: number }>('start', { deltas: s.deltas, delayMs: s.deltaDelayMs }, 10_000);
    const hub = await ctx.startHub('butler', await ctx.newStore('butler'), {
      BUTLER_BASE_URL: `http://127.0.0.1:${port}/v1`,
      BUTLER_MODEL: 'bench-model',
      BUTLER_MAX_REPLY_CHARS: '100000',
      BUTLER_MAX_CONCURRENCY: String(s.conversations),
    });
    const api = new HubApi(hub.baseUrl);
    const admin = await api.login(ADMIN.username, ADMIN.password);
    const cast = await createCast(api, admin.token, 'butler', s.members, 0);
    // One thread with Butler per conversation, spread round-robin over the members.
    const threads: number[][] = cast.humans.map(() => []);
    for (let i = 0; i < s.conversations; i++) {
      const member = cast.humans[i % cast.humans.length]!;
      const res = await fetch(`${hub.baseUrl}/api/chat/threads`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${member.token}` },
        body: JSON.stringify({ peer_id: 2, title: `bench ${i}` }),
      });
      if (res.status !== 201) throw new Error(`creating thread ${i} → ${res.status} ${await res.text()}`);
      threads[i % cast.humans.length]!.push(((await res.json()) as { id: number }).id);
    }
    ctx.log(`butler: ${s.conversations} conversations over ${s.members} members, ${s.deltas} deltas ${s.deltaDelayMs} ms apart`);
    const chat = await ctx.generator('askers', 'bench/gen/butlerChat.ts');
    await chat.call('connect', { urls: cast.humans.map((h) => hub.socketUrl(h.token)) }, 60_000);
    const usage = await meterUsage(hub, [chat, model]);
    const r = await chat.call<ButlerRunResult>(
      'run',
      { threads, deltas: s.deltas, durationMs: s.durationMs, drainMs: s.drainMs },
      s.durationMs + s.drainMs + 30_000,
    );
    const u = await usage.stop();
    const modelStats = await model.call<FakeModelStats>('stats', {}, 10_000);
    await chat.call('close', {}, 30_000);
    await ctx.stopHub(hub, { from: r.startedAt, to: r.endedAt }, 'the measured conversations');

    const seconds = (r.endedAt - r.startedAt) / 1000;
    const perSecond = r.completed / seconds;
    const modelMs = s.deltas * s.deltaDelayMs;
    const ideal = s.conversations / (modelMs / 1000);
    // On a busy machine answers/s follows the CPU the hub is given; its CPU per answer does not.
    const cpuMsPerAnswer = r.completed > 0 ? ((u.serverCpuPercent / 100) * seconds * 1000) / r.completed : null;
    const delta = percentiles(r.deltaLatency);
    const answer = percentiles(r.answerMs);
    const modelStream = modelStats.streamMs;
    const problems = [...r.problems];
    if (r.problemCount > r.problems.length) problems.push(`${r.problemCount - r.problems.length} more answers were wrong`);
    if (r.completed === 0) problems.push('no answer completed');
    return {
      summary: {
        conversations: s.conversations,
        completedPerSec: round(perSecond),
        idealPerSec: round(ideal),
        addedMsPerDeltaP50: round(delta.p50),
        addedMsPerDeltaP99: round(delta.p99),
        answerMsP99: round(answer.p99),
        modelStreamMsP50: round(modelStream.p50),
        cpuMsPerAnswer: cpuMsPerAnswer === null ? null : round(cpuMsPerAnswer),
      },
      details: { settings: s, asked: r.asked, completed: r.completed, seconds, deltaMs: delta, answerMs: answer, modelStreamMs: modelStream, usage: u },
      markdown: [
        `### Butler (${s.conversations} concurrent conversations, fake model: ${s.deltas} deltas ${s.deltaDelayMs} ms apart = ${modelMs} ms per answer)`,
        '',
        `| answers | answers/s | ideal/s | added ms per delta p50 / p99 / max | answer ms p50 / p99 | model's stream ms p50 / p99 | server CPU ms / answer ${usageHeader}`,
        `|---:|---:|---:|---:|---:|---:|---:|${usageAlign}`,
        `| ${int(r.completed)} | ${round(perSecond)} | ${round(ideal)} | ${ms(delta.p50)} / ${ms(delta.p99)} / ${ms(delta.max)} | ${ms(answer.p50)} / ${ms(answer.p99)} | ${ms(modelStream.p50)} / ${ms(modelStream.p99)} | ${cpuMsPerAnswer === null ? '—' : round(cpuMsPerAnswer)} ${usageCells(u)}`,
        '',
        'Every conversation asks again as soon as its answer ends. *ideal/s* is every conversation kept busy with the model as the only wait. ' +
          "*Added ms per delta* is from the model writing a delta to the asker receiving the CHAT_STREAM that holds it; it includes Butler's coalescing " +
          "(the first delta goes at once, later ones at most every 50 ms). *Model's stream* is how long the fake model took per answer, request read → last byte (" +
          `${modelMs} ms if its timers were exact). Each final CHAT must hold every delta once, in order, and equal its chunks joined.`,
        '',
      ],
      problems,
    };
  },
});

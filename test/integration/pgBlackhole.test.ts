// PostgreSQL blackholed (reached through a proxy that carries no byte either way, as a network that
// drops packets): the hub answers within its time limits instead of waiting for the link, holds at
// most WRITE_QUEUE_MAX_BYTES of messages, refuses the rest with `unavailable` naming each frame,
// reports itself unready, answers reads with 503 and Retry-After; once the link heals, frames sent
// again are stored once each and acknowledged.
import { describe, expect, inject, it } from 'vitest';
import { startTestHubBehindProxy } from '../helpers/hub.js';
import { connectWs, type Frame } from '../helpers/wsClient.js';

const MAX_QUEUED = 64 * 1024;
const FRAMES = 120;
const FILLER = 'x'.repeat(2_000);

describe.skipIf(!inject('pgUrl'))('PostgreSQL blackholed', () => {
  it('answers every frame and request within its limits, holds at most WRITE_QUEUE_MAX_BYTES, and stores every resend once when the link heals', async () => {
    const { t, proxy, stop } = await startTestHubBehindProxy({
      DB_CONNECT_TIMEOUT: '500ms',
      DB_STATEMENT_TIMEOUT: '1s',
      DB_QUERY_TIMEOUT: '1500ms',
      WRITE_QUEUE_MAX_BYTES: String(MAX_QUEUED),
    });
    try {
      const human = await t.createMember();
      const agent = await t.createAgent();
      const humanWs = await connectWs(t.url, human.token);
      const agentWs = await connectWs(t.url, agent.api_token);
      const chat = (local_id: string) => agentWs.send({ type: 'CHAT', target_id: human.id, local_id, payload: `${local_id} ${FILLER}` });
      chat('warm');
      await agentWs.next('ACK');

      proxy.blackhole();
      const started = performance.now();
      let peakQueued = 0;
      const ids = Array.from({ length: FRAMES }, (_, i) => `m${i}`);
      for (const id of ids) {
        chat(id);
        peakQueued = Math.max(peakQueued, t.hub.pipeline.queuedBytes);
      }
      // Every frame is answered: refused at once past the bound, or refused when its batch fails.
      const answers = new Map<string, Frame>();
      while (answers.size < FRAMES) {
        const f = await agentWs.nextWhere((x) => (x.type === 'ERROR' || x.type === 'ACK') && ids.includes(x.local_id!), 'an answer', 15_000);
        answers.set(f.local_id!, f);
      }
      const answeredIn = performance.now() - started;
      expect([...answers.values()].every((f) => f.type === 'ERROR' && f.payload.code === 'unavailable')).toBe(true);
      const full = [...answers.values()].filter((f) => /holds as many messages as it may/.test(f.payload.message)).length;
      expect(full).toBeGreaterThan(0);
      expect(peakQueued).toBeLessThanOrEqual(MAX_QUEUED);
      expect(answeredIn).toBeLessThan(12_000);
      expect(t.logs.some((l) => String(l['msg']).startsWith('the write queue is full'))).toBe(true);

      let asked = performance.now();
      const ready = await t.api.get('/api/ready');
      expect(ready.status).toBe(503);
      expect(performance.now() - asked).toBeLessThan(3_000);

      asked = performance.now();
      const agents = await t.api.get('/api/users/agents', { token: t.adminToken });
      expect(agents.status).toBe(503);
      expect(agents.headers.get('retry-after')).toBe('5');
      expect(agents.body).toEqual({ error: 'the store is unavailable; try again shortly' });
      expect(performance.now() - asked).toBeLessThan(4_000);

      await proxy.restore();
      // The agent sends every refused frame again, as the wire contract says (past the bound some are
      // refused again at first: it sends those once more); the hub stores each once.
      const acks = new Map<string, number>();
      for (let round = 0; acks.size < FRAMES && round < 20; round++) {
        const waiting = ids.filter((id) => !acks.has(id));
        for (const id of waiting) chat(id);
        for (let answered = 0; answered < waiting.length; answered++) {
          const f = await agentWs.nextWhere((x) => (x.type === 'ERROR' || x.type === 'ACK') && waiting.includes(x.local_id!), 'an answer', 15_000);
          if (f.type === 'ACK') acks.set(f.local_id!, f.id!);
          else expect(f.payload.code).toBe('unavailable');
        }
      }
      expect(acks.size).toBe(FRAMES);
      const stored = await t.hub.store.db.selectFrom('messages').select(['id', 'local_id']).where('sender_id', '=', agent.id).execute();
      expect(stored).toHaveLength(FRAMES + 1);
      for (const row of stored) if (row.local_id !== 'warm') expect(acks.get(row.local_id!)).toBe(row.id);
      for (const id of acks.values()) await humanWs.nextWhere((f) => f.type === 'CHAT' && f.id === id, `CHAT ${id}`);
      expect((await t.api.get('/api/ready')).status).toBe(200);
      expect(t.hub.pipeline.queuedBytes).toBe(0);
      await humanWs.close();
      await agentWs.close();
    } finally {
      await stop();
    }
  }, 60_000);
});

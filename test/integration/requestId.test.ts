// X-Request-Id: a sane incoming id is kept, anything else is replaced by a fresh one; it comes back
// in the response and is on every log line of the request, the 500 entry included.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestHub, type TestHub } from '../helpers/hub.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

describe('request ids', () => {
  let t: TestHub;
  beforeAll(async () => {
    t = await startTestHub('sqlite');
  });
  afterAll(() => t.stop());

  const linesOf = (id: string) => t.logs.filter((l) => l['req_id'] === id);

  it('keeps a valid incoming X-Request-Id, returns it and logs the request with it', async () => {
    const res = await t.api.get('/api/users/agents', { token: t.adminToken, headers: { 'X-Request-Id': 'edge-proxy:4f2a/77' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-request-id')).toBe('edge-proxy:4f2a/77');
    expect(linesOf('edge-proxy:4f2a/77')).toEqual([expect.objectContaining({ msg: 'request', path: '/api/users/agents', status: 200 })]);
  });

  it('makes a fresh id when none is sent or the one sent is not a sane token', async () => {
    const ids = new Set<string>();
    for (const given of [undefined, 'has spaces in it', 'x'.repeat(129), 'quote"and\\backslash', '']) {
      const res = await t.api.get('/api/ping', { headers: given === undefined ? {} : { 'X-Request-Id': given } });
      const id = res.headers.get('x-request-id')!;
      expect(id, String(given)).toMatch(UUID);
      expect(linesOf(id)).toHaveLength(1);
      ids.add(id);
    }
    expect(ids.size).toBe(5);
    expect(JSON.stringify(t.logs)).not.toContain('has spaces in it');
  });

  it('puts the id on an error answer and on the 500 entry in the log', async () => {
    const refused = await t.api.get('/api/users', { headers: { 'X-Request-Id': 'refused-1' } });
    expect(refused.status).toBe(401);
    expect(refused.headers.get('x-request-id')).toBe('refused-1');
    expect(linesOf('refused-1')).toEqual([expect.objectContaining({ msg: 'request', status: 401 })]);

    const broken = await startTestHub('sqlite');
    try {
      await broken.hub.store.close();
      const res = await broken.api.get('/api/users/agents', { token: broken.adminToken, headers: { 'X-Request-Id': 'fails-500' } });
      expect(res.status).toBe(500);
      expect(res.body).toEqual({ error: 'Internal server error' });
      expect(res.headers.get('x-request-id')).toBe('fails-500');
      const lines = broken.logs.filter((l) => l['req_id'] === 'fails-500');
      expect(lines.map((l) => l['msg'])).toEqual(['unhandled error in request', 'request failed']);
      expect(lines[0]).toMatchObject({ level: 'error', err: expect.objectContaining({ message: expect.any(String) }) });
    } finally {
      await broken.stop().catch(() => undefined);
    }
  });
});

// GET /metrics over real traffic: scrapes before and after connects, chat, bad frames, a slow
// consumer, a rate-limit close and HTTP errors, and the counters must move by exactly that much.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { ConnectionActor } from '../../src/actors/connection.js';
import { describeEachDriver } from '../helpers/db.js';
import { startTestHub, type TestHub } from '../helpers/hub.js';
import { delta, parseMetrics, scrape, valueOf } from '../helpers/metrics.js';
import { connectWs, wsClientPool, type WsClient } from '../helpers/wsClient.js';

/** The connection actor of a user's socket (the newest, when they hold several). */
function actorOf(t: TestHub, userId: number): ConnectionActor {
  const actor = [...t.hub.connections.values()].reverse().find((c) => c.getSnapshot().context.user?.id === userId);
  if (!actor) throw new Error(`no connection actor for user ${userId}`);
  return actor;
}

/** Resolves once the actor reached its final state (the edge has counted the close by then). */
function whenDone(actor: ConnectionActor): Promise<void> {
  return new Promise((resolve) => {
    const check = () => {
      if (actor.getSnapshot().status !== 'done') return;
      subscription.unsubscribe();
      resolve();
    };
    const subscription = actor.subscribe({ next: check, complete: check });
    check();
  });
}

async function closeAndSettle(t: TestHub, client: WsClient, userId: number): Promise<void> {
  const done = whenDone(actorOf(t, userId));
  await client.close();
  await done;
}

const bytesOf = (frames: readonly unknown[]) => frames.reduce<number>((sum, f) => sum + Buffer.byteLength(JSON.stringify(f)), 0);

describeEachDriver('metrics', (driver) => {
  let t: TestHub;
  const clients = wsClientPool(() => t.url);
  beforeAll(async () => {
    t = await startTestHub(driver, { WS_MAX_BUFFERED_BYTES: String(64 * 1024), WS_RATE_LIMIT: '200', WS_RATE_BURST: '200' });
  });
  afterEach(() => clients.closeAll());
  afterAll(() => t.stop());

  it('serves the Prometheus text format with the process metrics and event-loop lag', async () => {
    const res = await fetch(`${t.url}/metrics`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
    const text = await res.text();
    const samples = parseMetrics(text); // throws on a line that is not a sample
    expect(valueOf(samples, 'process_cpu_user_seconds_total')).toBeGreaterThan(0);
    expect(samples.has('nodejs_eventloop_lag_seconds')).toBe(true);
    expect(samples.has('nodejs_eventloop_lag_p99_seconds')).toBe(true);
    expect(text).toContain('# TYPE hub_ws_open_sockets gauge');
    expect(text).toContain('# HELP hub_pipeline_delivery_seconds');
  });

  it('counts connects, chat, bad frames, disconnects and bytes exactly', async () => {
    const agent = await t.createAgent();
    const member = await t.createMember();
    const before = await scrape(t);

    const m = await connectWs(t.url, member.token);
    const a = await connectWs(t.url, agent.api_token);
    await m.nextWhere((f) => f.type === 'PRESENCE' && f.payload.online === true, 'the agent online');
    const mid = await scrape(t);
    expect(delta(before, mid, 'hub_ws_open_sockets', { role: 'MEMBER' })).toBe(1);
    expect(delta(before, mid, 'hub_ws_open_sockets', { role: 'AGENT' })).toBe(1);

    const sent = [
      JSON.stringify({ type: 'CHAT', payload: 'hello agent', target_id: agent.id }),
      JSON.stringify({ type: 'CHAT', payload: 'hello member', target_id: member.id, local_id: 'm-1' }),
      '{"type":"CHAT",',
      JSON.stringify({ type: 'NOT_A_TYPE', payload: 'x' }),
    ];
    m.sendRaw(sent[0]!);
    await a.next('CHAT');
    await m.next('CHAT'); // the human's echo
    a.sendRaw(sent[1]!);
    await a.next('ACK');
    await m.nextWhere((f) => f.type === 'CHAT' && f.local_id === 'm-1', 'the agent chat');
    a.sendRaw(sent[2]!);
    expect((await a.next('ERROR')).payload.code).toBe('invalid_json');
    a.sendRaw(sent[3]!);
    expect((await a.next('ERROR')).payload.code).toBe('unknown_type');

    await closeAndSettle(t, a, agent.id);
    await m.nextWhere((f) => f.type === 'PRESENCE' && f.payload.online === false, 'the agent offline');
    await closeAndSettle(t, m, member.id);
    const after = await scrape(t);

    expect(delta(before, after, 'hub_ws_connects_total', { role: 'MEMBER' })).toBe(1);
    expect(delta(before, after, 'hub_ws_connects_total', { role: 'AGENT' })).toBe(1);
    expect(delta(before, after, 'hub_ws_open_sockets', { role: 'MEMBER' })).toBe(0);
    expect(delta(before, after, 'hub_ws_open_sockets', { role: 'AGENT' })).toBe(0);
    expect(delta(before, after, 'hub_ws_disconnects_total', { role: 'MEMBER', code: 1000 })).toBe(1);
    expect(delta(before, after, 'hub_ws_disconnects_total', { role: 'AGENT', code: 1000 })).toBe(1);

    expect(delta(before, after, 'hub_ws_frames_received_total', { type: 'CHAT' })).toBe(2);
    expect(delta(before, after, 'hub_ws_frames_received_total', { type: 'refused' })).toBe(2);
    expect(delta(before, after, 'hub_ws_received_bytes_total')).toBe(sent.reduce((sum, s) => sum + Buffer.byteLength(s), 0));

    // CHAT: to the agent, the member's echo, the agent's reply to the member.
    expect(delta(before, after, 'hub_ws_frames_sent_total', { type: 'CHAT' })).toBe(3);
    expect(delta(before, after, 'hub_ws_frames_sent_total', { type: 'ACK' })).toBe(1);
    expect(delta(before, after, 'hub_ws_frames_sent_total', { type: 'ERROR' })).toBe(2);
    expect(delta(before, after, 'hub_ws_frames_sent_total', { type: 'PRESENCE' })).toBe(2);
    expect(delta(before, after, 'hub_ws_error_frames_total', { code: 'invalid_json' })).toBe(1);
    expect(delta(before, after, 'hub_ws_error_frames_total', { code: 'unknown_type' })).toBe(1);
    // Every frame the two clients received, byte for byte.
    expect(delta(before, after, 'hub_ws_sent_bytes_total')).toBe(bytesOf(m.received) + bytesOf(a.received));

    // Two stored chats and the presence changes went through group commits, each delivered.
    expect(delta(before, after, 'hub_pipeline_batch_size_count')).toBeGreaterThanOrEqual(2);
    expect(delta(before, after, 'hub_pipeline_batch_size_sum')).toBeGreaterThanOrEqual(4);
    expect(delta(before, after, 'hub_pipeline_commit_seconds_count')).toBe(delta(before, after, 'hub_pipeline_batch_size_count'));
    expect(delta(before, after, 'hub_pipeline_delivery_seconds_count')).toBeGreaterThanOrEqual(2);
    expect(delta(before, after, 'hub_pipeline_failed_commits_total')).toBe(0);
    expect(valueOf(after, 'hub_pipeline_queue_depth')).toBe(0);
  });

  it('counts a slow consumer cut off with 4011', { timeout: 60_000 }, async () => {
    const agent = await t.createAgent();
    const reader = await t.createMember();
    const before = await scrape(t);
    const slow = await clients.connect(reader.token);
    const a = await clients.connect(agent.api_token);
    const slowActor = actorOf(t, reader.id);
    const cut = whenDone(slowActor);
    let finished = false;
    void cut.then(() => (finished = true));
    (slow.socket as unknown as { _socket: { pause(): void } })._socket.pause();
    const content = 'x'.repeat(60_000);
    // One at a time, each acknowledged: the reader's buffer grows until the hub cuts it off.
    for (let i = 0; i < 200 && !finished; i++) {
      a.send({ type: 'SYSTEM_LOG', payload: { level: 'INFO', content }, local_id: `slow-${i}` });
      await a.nextWhere((f) => f.type === 'ACK' && f.local_id === `slow-${i}`, `ACK ${i}`);
    }
    await cut;
    expect(slowActor.getSnapshot().context.closeCode).toBe(4011);
    const after = await scrape(t);
    expect(delta(before, after, 'hub_ws_slow_consumer_closes_total')).toBe(1);
    expect(delta(before, after, 'hub_ws_disconnects_total', { role: 'MEMBER', code: 4011 })).toBe(1);
    expect(delta(before, after, 'hub_ws_open_sockets', { role: 'MEMBER' })).toBe(0);
    (slow.socket as unknown as { _socket: { resume(): void } })._socket.resume();
  });

  it('counts a socket closed for the rate limit (4008) and every rate_limited ERROR it got', async () => {
    const agent = await t.createAgent();
    const before = await scrape(t);
    const a = await connectWs(t.url, agent.api_token);
    const actor = actorOf(t, agent.id);
    const done = whenDone(actor);
    // Burst of 200, then 20 warnings: 300 frames at once overrun both.
    for (let i = 0; i < 300; i++) a.send({ type: 'SYSTEM_LOG', payload: { level: 'INFO', content: `r${i}` } });
    expect((await a.closed()).code).toBe(4008);
    await done;
    const after = await scrape(t);
    const warnings = a.received.filter((f) => f.type === 'ERROR' && f.payload.code === 'rate_limited').length;
    expect(warnings).toBeGreaterThan(0);
    expect(delta(before, after, 'hub_ws_rate_limit_closes_total')).toBe(1);
    expect(delta(before, after, 'hub_ws_disconnects_total', { role: 'AGENT', code: 4008 })).toBe(1);
    expect(delta(before, after, 'hub_ws_error_frames_total', { code: 'rate_limited' })).toBe(warnings);
    // Each refused frame was answered with one ERROR; the burst was taken; what came after the close was never read.
    expect(delta(before, after, 'hub_ws_frames_received_total', { type: 'refused' })).toBe(a.received.filter((f) => f.type === 'ERROR').length);
    const taken = delta(before, after, 'hub_ws_frames_received_total', { type: 'SYSTEM_LOG' });
    expect(taken).toBeGreaterThanOrEqual(200);
    expect(taken + warnings).toBeLessThanOrEqual(300);
  });

  it('counts HTTP requests by route pattern and status, never by the path a client typed', async () => {
    const before = await scrape(t);
    expect((await t.api.get('/api/no-such-route-9731')).status).toBe(404);
    expect((await t.api.get('/api/users')).status).toBe(401);
    expect((await t.api.get('/api/users/987654', { token: t.adminToken })).status).toBe(404);
    expect((await t.api.get('/api/users/not-a-number', { token: t.adminToken })).status).toBe(400);
    const after = await scrape(t);
    expect(delta(before, after, 'hub_http_requests_total', { method: 'GET', route: 'unmatched', status: 404 })).toBe(1);
    expect(delta(before, after, 'hub_http_requests_total', { method: 'GET', route: '/api/users', status: 401 })).toBe(1);
    expect(delta(before, after, 'hub_http_requests_total', { method: 'GET', route: '/api/users/:id', status: 404 })).toBe(1);
    expect(delta(before, after, 'hub_http_requests_total', { method: 'GET', route: '/api/users/:id', status: 400 })).toBe(1);
    expect(delta(before, after, 'hub_http_request_duration_seconds_count', { method: 'GET', route: '/api/users/:id' })).toBe(2);
    const keys = [...after.keys()].join('\n');
    expect(keys).not.toContain('no-such-route');
    expect(keys).not.toContain('987654');
    expect(keys).not.toContain('not-a-number');
  });
});

describe('metrics access and switch', () => {
  let t: TestHub;
  afterEach(() => t.stop());

  it('asks for METRICS_TOKEN as a bearer token when it is set', async () => {
    t = await startTestHub('sqlite', { METRICS_TOKEN: 'scrape-token-0123456789' });
    const none = await t.api.get('/metrics');
    expect(none.status).toBe(401);
    expect(none.body).toEqual({ error: 'authorization header required' });
    const wrong = await t.api.get('/metrics', { token: 'scrape-token-wrong-value' });
    expect(wrong.status).toBe(401);
    expect(wrong.body).toEqual({ error: 'invalid token' });
    // An admin's JWT is not the scrape token either.
    expect((await t.api.get('/metrics', { token: t.adminToken })).status).toBe(401);
    const samples = await scrape(t, 'scrape-token-0123456789');
    expect(samples.has('hub_ws_slow_consumer_closes_total')).toBe(true);
    expect(JSON.stringify(t.logs)).not.toContain('scrape-token-0123456789');
  });

  it('answers 404 and counts nothing with METRICS_ENABLED=false, and the hub works as before', async () => {
    t = await startTestHub('sqlite', { METRICS_ENABLED: 'false' });
    const res = await t.api.get('/metrics');
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ error: 'metrics are disabled on this hub (METRICS_ENABLED=false)' });
    const member = await t.createMember();
    const m = await connectWs(t.url, member.token);
    m.send({ type: 'CHAT', payload: 'still delivered' });
    expect((await m.next('CHAT')).payload).toBe('still delivered');
    await m.close();
  });
});

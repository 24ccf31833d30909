// The HTTP edge: ping, JSON 404, CORS, malformed and oversized bodies, the fixed 500 body, and
// proof that the native uWS binary serves.
import process from 'node:process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeEachDriver } from '../helpers/db.js';
import { startTestHub, type TestHub } from '../helpers/hub.js';

describeEachDriver('HTTP edge', (driver) => {
  let t: TestHub;
  beforeAll(async () => {
    t = await startTestHub(driver, { HTTP_BODY_LIMIT_BYTES: '4096' });
  });
  afterAll(() => t.stop());

  it('answers ping publicly with pong', async () => {
    const res = await t.api.get('/api/ping');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ message: 'pong' });
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  });

  it('answers a plain HTTP request to the WebSocket endpoint with 426 and how to connect', async () => {
    const res = await t.api.get('/api/ws?token=whatever');
    expect(res.status).toBe(426);
    expect(res.headers.get('upgrade')).toBe('websocket');
    expect(res.body).toEqual({ error: 'this endpoint speaks WebSocket: connect with a WebSocket client to /api/ws?token=<JWT or api_token>' });
    // The token in the query string is not written to the log.
    expect(JSON.stringify(t.logs)).not.toContain('whatever');
  });

  it('answers an unknown route with a JSON 404', async () => {
    for (const [method, path] of [
      ['GET', '/api/nope'],
      ['POST', '/api/ping/x'],
      ['GET', '/favicon.ico'],
      ['POST', '/'],
      ['PUT', '/api/users'],
    ] as const) {
      const res = await t.api.request(method, path, { token: t.adminToken });
      expect(res.status, `${method} ${path}`).toBe(404);
      expect(res.body).toEqual({ error: 'not found' });
    }
  });

  it('answers CORS preflight for allowed origins and exposes X-Total-Count (with its cap flag) and Retry-After', async () => {
    const res = await fetch(`${t.url}/api/users/agents`, {
      method: 'OPTIONS',
      headers: { Origin: 'http://localhost:5173', 'Access-Control-Request-Method': 'GET', 'Access-Control-Request-Headers': 'authorization' },
    });
    expect(res.status).toBe(204);
    expect(res.headers.get('access-control-allow-origin')).toBe('http://localhost:5173');
    expect(res.headers.get('access-control-allow-methods')).toBe('GET,POST,PUT,PATCH,DELETE,OPTIONS');
    expect(res.headers.get('access-control-allow-headers')).toBe('Authorization,Content-Type');
    const get = await fetch(`${t.url}/api/ping`, { headers: { Origin: 'http://localhost:3000' } });
    // A page served from another origin reads the total, whether it is capped, and when to ask again after a 429 or 503.
    expect(get.headers.get('access-control-expose-headers')).toBe('X-Total-Count,X-Total-Count-Capped,Retry-After');
    const other = await fetch(`${t.url}/api/ping`, { headers: { Origin: 'http://evil.example' } });
    expect(other.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('answers malformed JSON with 400 invalid request body and writes nothing', async () => {
    const res = await t.api.request('POST', '/api/users/agents', { token: t.adminToken, rawBody: '{"username": "x",' });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: 'invalid request body' });
    const list = await t.api.get('/api/users/agents', { token: t.adminToken });
    expect(list.body.map((a: { username: string }) => a.username)).not.toContain('x');
  });

  it('answers a JSON body that is not an object with 400', async () => {
    for (const raw of ['[1,2]', '"text"', '42', 'null']) {
      const res = await t.api.request('POST', '/api/users/agents', { token: t.adminToken, rawBody: raw });
      expect(res.status, raw).toBe(400);
      expect(res.body.error).toBe('request body must be a JSON object');
    }
  });

  it('answers an oversized body with 413, declared or streamed', async () => {
    const big = JSON.stringify({ username: 'big', description: 'x'.repeat(10_000) });
    const declared = await t.api.request('POST', '/api/users/agents', { token: t.adminToken, rawBody: big });
    expect(declared.status).toBe(413);
    expect(declared.body).toEqual({ error: 'request body is larger than 4096 bytes' });
    // Chunked upload without Content-Length: counted while it streams.
    const stream = new ReadableStream({
      start(controller) {
        controller.enqueue(new TextEncoder().encode(big));
        controller.close();
      },
    });
    const res = await fetch(`${t.url}/api/users/agents`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${t.adminToken}`, 'Content-Type': 'application/json' },
      body: stream,
      duplex: 'half',
    } as RequestInit);
    expect(res.status).toBe(413);
  });

  it('logs one line per request with method, path, status and ms, and no credentials', async () => {
    await t.api.get('/api/users/agents?token=super-secret-value&q=a', { token: t.adminToken });
    const line = t.logs.find((l) => l['msg'] === 'request' && String(l['path']).startsWith('/api/users/agents?'));
    expect(line).toMatchObject({ method: 'GET', status: 200, path: '/api/users/agents?token=[redacted]&q=a' });
    expect(typeof line?.['ms']).toBe('number');
    expect(JSON.stringify(t.logs)).not.toContain('super-secret-value');
    expect(JSON.stringify(t.logs)).not.toContain(t.adminToken);
    expect(JSON.stringify(t.logs)).not.toContain('admin-password');
  });
});

describe('native uWebSockets.js', () => {
  it('is the native binary, loaded in this process, that serves the hub', async () => {
    const t = await startTestHub('sqlite');
    try {
      const res = await t.api.get('/api/ping');
      expect(res.status).toBe(200);
      const report = process.report.getReport() as unknown as { sharedObjects: string[] };
      const native = report.sharedObjects.filter((path) => /uws_linux_x64_\d+\.node$/.test(path));
      expect(native).toHaveLength(1);
      expect(native[0]).toContain(`uws_linux_x64_${process.versions.modules}.node`);
    } finally {
      await t.stop();
    }
  });
});

describeEachDriver('internal errors', (driver) => {
  it('answer 500 with the fixed body and log the cause', async () => {
    const t = await startTestHub(driver);
    try {
      await t.hub.store.close(); // the store going away mid-flight is an internal fault, not the client's
      const res = await t.api.get('/api/users/agents', { token: t.adminToken });
      expect(res.status).toBe(500);
      expect(res.body).toEqual({ error: 'Internal server error' });
      const logged = t.logs.find((l) => l['msg'] === 'unhandled error in request');
      expect(logged).toBeDefined();
      expect(JSON.stringify(logged)).toMatch(/destroyed|closed|not open/i);
    } finally {
      await t.stop().catch(() => undefined);
    }
  });
});

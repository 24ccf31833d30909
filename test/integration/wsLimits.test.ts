// The WebSocket's limits as a client meets them: frame sizes around every limit (ERROR and keep,
// close 1009 with a reason, the transport's own cap), invalid UTF-8, a rate-limit close that still
// acknowledges everything it stored, and a stalled reader let go of at once.
import { readFileSync } from 'node:fs';
import WebSocket from 'ws';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { describeEachDriver } from '../helpers/db.js';
import { startTestHub, type TestHub } from '../helpers/hub.js';
import { connectWs, type WsClient } from '../helpers/wsClient.js';

const MiB = 1024 * 1024;

/** Opens a raw socket (for frames the test client would refuse to build) and resolves its close. */
function rawSocket(url: string, token: string): Promise<{ ws: WebSocket; closed: Promise<{ code: number; reason: string }> }> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`${url.replace(/^http/, 'ws')}/api/ws?token=${encodeURIComponent(token)}`, { maxPayload: 0 });
    const closed = new Promise<{ code: number; reason: string }>((done) => ws.on('close', (code, reason) => done({ code, reason: reason.toString() })));
    ws.on('error', () => undefined);
    ws.once('open', () => resolve({ ws, closed }));
    ws.once('unexpected-response', (_req, res) => reject(new Error(`upgrade refused: ${res.statusCode}`)));
  });
}

/** The server side of a TCP connection from `clientPort` to `serverPort`, as /proc/net/tcp lists it. */
function serverSideState(serverPort: number, clientPort: number): string | undefined {
  const hex = (n: number) => n.toString(16).toUpperCase().padStart(4, '0');
  for (const line of readFileSync('/proc/net/tcp', 'utf8').split('\n').slice(1)) {
    const [, local, remote, state] = line.trim().split(/\s+/);
    if (local?.endsWith(`:${hex(serverPort)}`) && remote?.endsWith(`:${hex(clientPort)}`)) return state;
  }
  return undefined;
}
const ESTABLISHED = '01';

describeEachDriver('websocket limits', (driver) => {
  let t: TestHub;
  const logsOf = (message: string) => t.logs.filter((l) => l['msg'] === message);
  beforeAll(async () => {
    t = await startTestHub(driver);
  });
  afterAll(() => t.stop());

  it('answers a frame just over WS_MAX_FRAME_BYTES with frame_too_large and keeps the socket', async () => {
    const agent = await t.createAgent();
    const client = await connectWs(t.url, agent.api_token);
    const before = logsOf('frame over the size limit: answered with ERROR').length;
    const frame = JSON.stringify({ type: 'CHAT', payload: '', local_id: 'big' });
    client.sendRaw(frame.replace('"payload":""', `"payload":"${'x'.repeat(MiB + 1 - frame.length)}"`));
    const error = await client.next('ERROR');
    expect(error.payload).toEqual({ code: 'frame_too_large', message: `frame is ${MiB + 1} bytes; the limit is ${MiB}` });
    expect(logsOf('frame over the size limit: answered with ERROR')).toHaveLength(before + 1);
    // Still open and served.
    client.send({ type: 'SYSTEM_LOG', payload: { level: 'INFO', content: 'after the big one' }, local_id: 'small' });
    expect(await client.next('ACK')).toMatchObject({ local_id: 'small' });
    await client.close();
  });

  for (const size of [2 * MiB + 1, 10 * MiB]) {
    it(`closes a socket that sends a frame of ${size} bytes with 1009 and a reason, and logs it once`, async () => {
      const agent = await t.createAgent();
      const { ws, closed } = await rawSocket(t.url, agent.api_token);
      const before = logsOf('frame far over the size limit: closing the socket with 1009').length;
      ws.send('x'.repeat(size));
      expect(await closed).toEqual({ code: 1009, reason: `frame of ${size} bytes; the limit is ${MiB}` });
      expect(logsOf('frame far over the size limit: closing the socket with 1009')).toHaveLength(before + 1);
      expect(logsOf('frame far over the size limit: closing the socket with 1009').at(-1)).toMatchObject({ user: agent.username, bytes: size, limit: MiB });
    });
  }

  it('past WS_HARD_FRAME_BYTES the transport drops the socket; the hub logs why, once, and counts it', async () => {
    const agent = await t.createAgent();
    const { ws, closed } = await rawSocket(t.url, agent.api_token);
    ws.send('x'.repeat(16 * MiB + 1));
    expect((await closed).code).toBe(1006);
    const drop = await waitForLog(t, (l) => l['msg'] === 'the transport dropped the connection: Received too big message' && l['user'] === agent.username);
    expect(drop).toMatchObject({ code: 1006, reason: 'Received too big message' });
    const metrics = await (await fetch(`${t.url}/metrics`)).text();
    expect(metrics).toMatch(/^hub_ws_transport_drops_total\{reason="too_large"\} [1-9]/m);
  });

  it('invalid UTF-8 in a text frame: the transport fails the connection; the hub logs the cause once and counts it', async () => {
    const agent = await t.createAgent();
    const { ws, closed } = await rawSocket(t.url, agent.api_token);
    // A masked text frame of two bytes that are not UTF-8 (0xff 0xfe), written under the client library.
    (ws as unknown as { _socket: { write(b: Buffer): void } })._socket.write(Buffer.from([0x81, 0x82, 0, 0, 0, 0, 0xff, 0xfe]));
    expect((await closed).code).toBe(1006);
    const lines = () => t.logs.filter((l) => l['msg'] === 'the transport dropped the connection: Received invalid UTF-8' && l['user'] === agent.username);
    await waitForLog(t, (l) => lines().includes(l));
    expect(lines()).toHaveLength(1);
    const metrics = await (await fetch(`${t.url}/metrics`)).text();
    expect(metrics).toMatch(/^hub_ws_transport_drops_total\{reason="invalid_utf8"\} [1-9]/m);
  });

  it('a rate-limit close (4008) comes after the ACK of every frame it stored; refused frames are named and not stored', async () => {
    const hub = await startTestHub(driver, { WS_RATE_LIMIT: '100', WS_RATE_BURST: '200' });
    try {
      const agent = await hub.createAgent();
      const client = await connectWs(hub.url, agent.api_token);
      const total = 2000;
      // The client reads nothing while it floods (as a tight send loop does): its ACKs pass the read
      // window and wait for its pong, and must still all go out before the close frame.
      const tcp = (client.socket as unknown as { _socket: { pause(): void; resume(): void } })._socket;
      tcp.pause();
      for (let i = 0; i < total; i++)
        client.send({ type: 'SYSTEM_LOG', payload: { level: 'INFO', content: `burst ${i} ${'p'.repeat(200)}` }, local_id: `b${i}` });
      await hub.hub.pipeline.drain();
      tcp.resume();
      expect(await client.closed(20_000)).toEqual({ code: 4008, reason: 'rate limit exceeded' });
      const acked = new Map(client.received.filter((f) => f.type === 'ACK').map((f) => [f.local_id!, f.id!]));
      const refused = new Set(client.received.filter((f) => f.type === 'ERROR' && f.payload.code === 'rate_limited').map((f) => f.local_id));
      await hub.hub.pipeline.drain();
      const rows = await hub.hub.store.db.selectFrom('messages').select(['id', 'local_id']).where('sender_id', '=', agent.id).execute();
      expect(rows.length).toBeGreaterThan(0);
      // Everything stored was acknowledged with its id; nothing refused was stored.
      expect(new Map(rows.map((r) => [r.local_id!, Number(r.id)]))).toEqual(acked);
      for (const row of rows) expect(refused.has(row.local_id!)).toBe(false);
      // A client resending what got neither answer (refused, or sent after the close began) adds
      // exactly those frames, each once.
      const unanswered = Array.from({ length: total }, (_, i) => `b${i}`).filter((id) => !acked.has(id));
      const again = await connectWs(hub.url, agent.api_token);
      for (const id of unanswered.slice(0, 150)) again.send({ type: 'SYSTEM_LOG', payload: { level: 'INFO', content: `burst ${id}` }, local_id: id });
      await again.nextWhere((f) => f.type === 'ACK' && f.local_id === unanswered[Math.min(149, unanswered.length - 1)], 'the last resend ACK', 10_000);
      const after = await hub.hub.store.db
        .selectFrom('messages')
        .select((eb) => eb.fn.countAll().as('n'))
        .where('sender_id', '=', agent.id)
        .executeTakeFirstOrThrow();
      expect(Number(after.n)).toBe(rows.length + Math.min(150, unanswered.length));
      await again.close();
    } finally {
      await hub.stop();
    }
  });

  it('notices a reader that stopped reading by its unanswered ping, long before the kernel buffers fill', async () => {
    const hub = await startTestHub(driver, { WS_MAX_BUFFERED_BYTES: String(256 * 1024) });
    try {
      const agent = await hub.createAgent();
      const reader = await hub.createMember();
      const stalled = await connectWs(hub.url, reader.token);
      const actor = [...hub.hub.connections.values()].find((c) => c.getSnapshot().context.user?.id === reader.id)!;
      (stalled.socket as unknown as { _socket: { pause(): void } })._socket.pause();
      const sender = await connectWs(hub.url, agent.api_token);
      const content = 'z'.repeat(16_000);
      let sent = 0;
      // A steady trickle (as a dashboard's feed is): the reader's kernel buffers on loopback hold
      // megabytes, so only its silence to the ping can tell it stopped.
      for (let i = 0; actor.getSnapshot().status !== 'done' && i < 2000; i++) {
        sender.send({ type: 'SYSTEM_LOG', payload: { level: 'INFO', content }, local_id: `t${i}` });
        await sender.nextWhere((f) => f.type === 'ACK' && f.local_id === `t${i}`, `ACK ${i}`);
        sent += content.length;
        // The traffic's rate (about 800 KB/s, a busy feed), not a wait for anything.
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      expect(actor.getSnapshot().context.closeCode).toBe(4011);
      // Cut off after about WS_MAX_BUFFERED_BYTES unread plus 1.5 s of traffic, far below what loopback's
      // kernel buffers take before the hub's own queue would even start to grow.
      expect(sent).toBeLessThan(2.5 * 1024 * 1024);
      await sender.close();
    } finally {
      await hub.stop();
    }
  }, 60_000);

  it('lets go of a stalled reader the moment it is cut off as a slow consumer (4011), keeping nothing queued for it', async () => {
    const hub = await startTestHub(driver, { WS_MAX_BUFFERED_BYTES: String(256 * 1024) });
    try {
      const agent = await hub.createAgent();
      const reader = await hub.createMember();
      const stalled: WsClient = await connectWs(hub.url, reader.token);
      const tcp = (stalled.socket as unknown as { _socket: { localPort: number; pause(): void } })._socket;
      const actor = [...hub.hub.connections.values()].find((c) => c.getSnapshot().context.user?.id === reader.id)!;
      tcp.pause();
      expect(serverSideState(hub.hub.port, tcp.localPort)).toBe(ESTABLISHED);
      const sender = await connectWs(hub.url, agent.api_token);
      const content = 'y'.repeat(60_000);
      for (let i = 0; actor.getSnapshot().status !== 'done' && i < 1000; i++) {
        sender.send({ type: 'SYSTEM_LOG', payload: { level: 'INFO', content }, local_id: `s${i}` });
        await sender.nextWhere((f) => f.type === 'ACK' && f.local_id === `s${i}`, `ACK ${i}`);
      }
      expect(actor.getSnapshot().context.closeCode).toBe(4011);
      // The hub closed its side at once (no longer ESTABLISHED, though the reader never read).
      expect(serverSideState(hub.hub.port, tcp.localPort)).not.toBe(ESTABLISHED);
      expect(hub.logs.filter((l) => l['msg'] === 'websocket closed' && l['user'] === reader.username).at(-1)).toMatchObject({ code: 4011 });
      await sender.close();
    } finally {
      await hub.stop();
    }
  }, 60_000);
});

/** Resolves with the first log line matching `predicate`, waiting for the hub to write it. */
function waitForLog(t: TestHub, predicate: (line: Record<string, unknown>) => boolean, timeoutMs = 5000): Promise<Record<string, unknown>> {
  return vi.waitFor(
    () => {
      const line = t.logs.find(predicate);
      if (!line) throw new Error(`no such log line within ${timeoutMs} ms`);
      return line;
    },
    { timeout: timeoutMs, interval: 10 },
  );
}

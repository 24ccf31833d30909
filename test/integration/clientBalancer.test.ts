// The typed client when something other than the hub answers its upgrade, on loopback: a load
// balancer's own 503 (HAProxy's HTML page, or the JSON one of deploy/haproxy.cfg) while the hub's HTTP
// API answers through it, and a server that accepts the connection but never answers the handshake.
// The lines a person reads say who answered, once per retry.
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { WebSocketServer } from 'ws';
import { recordingClient, type RecordingClient } from '../helpers/hubClients.js';

/** HAProxy's built-in answer when no server is available (its HTML page). */
const HAPROXY_503 =
  'HTTP/1.1 503 Service Unavailable\r\ncontent-length: 107\r\ncache-control: no-cache\r\ncontent-type: text/html\r\nconnection: close\r\n\r\n' +
  '<html><body><h1>503 Service Unavailable</h1>\nNo server is available to handle this request.\n</body></html>\n';

/** A front on loopback: REST answers as the hub does (the probe succeeds), upgrades go to `upgrade`. */
async function front(upgrade: (socket: Duplex, head: Buffer, req: IncomingMessage) => void) {
  const sockets = new Set<Duplex>();
  const http: Server = createServer((_req, res) => {
    res.writeHead(200, { 'Content-Type': 'application/json' });
    res.end(JSON.stringify({ id: 2, username: 'Butler', role: 'BUTLER' }));
  });
  http.on('upgrade', (req, socket: Duplex, head: Buffer) => {
    sockets.add(socket);
    upgrade(socket, head, req);
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(http.address() as AddressInfo).port}`,
    async close() {
      for (const s of sockets) s.destroy();
      http.closeAllConnections();
      await new Promise((resolve) => http.close(resolve));
    },
  };
}

describe('typed client behind a balancer', () => {
  let server: Awaited<ReturnType<typeof front>> | undefined;
  let recorder: RecordingClient | undefined;
  afterEach(async () => {
    await recorder?.client.close();
    await server?.close();
    server = recorder = undefined;
  });

  it("names a balancer's HTML 503 as the hub being unavailable, not as a WebSocket the hub would not open, once per retry", async () => {
    server = await front((socket) => socket.end(HAPROXY_503));
    recorder = recordingClient({ url: server.url, token: 'agent-token-0123456789', reconnect: { initialDelayMs: 10, maxDelayMs: 20 } });
    void recorder.client.connect();
    const statuses = recorder.statuses;
    await recorder.waitForStatus(() => statuses.filter((s) => s.state === 'waiting').length >= 3, 'three retries');
    // The client's own reconnect policy under test: one status line per wait; connecting and probing do
    // not repeat the line that explains it.
    expect(statuses.slice(0, 4).map((s) => s.state)).toEqual(['connecting', 'waiting', 'waiting', 'waiting']);
    for (const s of statuses.slice(1, 4)) expect(s.message).toMatch(/^the hub is unavailable \(503 from a proxy\); retrying in \d+\.\d s$/);
    expect(statuses.map((s) => s.message).join('\n')).not.toMatch(/accepts the credential/);
  });

  it('quotes the balancer when it answers in the hub’s error shape, and names its Server header when it does not', async () => {
    const json = '{"error":"no hub node is available behind the load balancer; try again shortly"}';
    let answer = `HTTP/1.1 503 Service Unavailable\r\ncontent-type: application/json\r\ncontent-length: ${json.length}\r\nconnection: close\r\n\r\n${json}`;
    server = await front((socket) => socket.end(answer));
    recorder = recordingClient({ url: server.url, token: 'agent-token-0123456789', reconnect: { initialDelayMs: 10, maxDelayMs: 20 } });
    void recorder.client.connect();
    const first = await recorder.waitForStatus((s) => s.state === 'waiting', 'a retry');
    expect(first.message).toMatch(/^the hub is unavailable \(503: no hub node is available behind the load balancer; try again shortly\); retrying in/);
    answer = 'HTTP/1.1 502 Bad Gateway\r\nserver: nginx/1.25\r\ncontent-type: text/html\r\ncontent-length: 0\r\nconnection: close\r\n\r\n';
    const next = await recorder.waitForStatus((s) => s.state === 'waiting' && s.message.includes('502'), 'a retry answered 502');
    expect(next.message).toMatch(/^the hub is unavailable \(502 from nginx\/1\.25\); retrying in/);
  });

  it('gives up a handshake that is never answered after openTimeoutMs, and opens on the next try', async () => {
    const wss = new WebSocketServer({ noServer: true });
    let hang = true;
    server = await front((socket, head, req) => {
      if (hang) return; // accepted, never answered: a node that stopped responding
      wss.handleUpgrade(req, socket, head, () => undefined);
    });
    recorder = recordingClient({ url: server.url, token: 'agent-token-0123456789', reconnect: { initialDelayMs: 10, maxDelayMs: 20 }, openTimeoutMs: 300 });
    const connected = recorder.client.connect();
    const gaveUp = await recorder.waitForStatus((s) => s.state === 'waiting', 'the handshake given up');
    expect(gaveUp.message).toMatch(/^the WebSocket did not open within 0\.3 s; retrying in \d+\.\d s$/);
    hang = false;
    await connected;
    expect(recorder.client.state).toBe('open');
    for (const c of wss.clients) c.terminate();
    wss.close();
  });
});

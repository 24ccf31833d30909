// Fetching a remote agent's card against real loopback HTTP servers: a good card (v1.0, and a same-host
// redirect followed), and every refusal with the sentence an admin reads: a private address with
// A2A_ALLOW_PRIVATE_NETWORK off, an oversized card (declared
// and streamed), a slow card, a redirect to another host, not JSON, no JSON-RPC interface.
import { createServer, type RequestListener, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { CardRefused, fetchCard } from '../../../../src/a2a/remote/cardFetch.js';
import { webhookDispatcher } from '../../../../src/a2a/webhookGuard.js';

const servers: Server[] = [];
async function serve(handler: RequestListener): Promise<string> {
  const s = createServer(handler);
  servers.push(s);
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(s.address() as AddressInfo).port}`;
}
afterEach(async () => {
  for (const s of servers.splice(0)) {
    s.closeAllConnections();
    await new Promise<void>((resolve) => s.close(() => resolve()));
  }
});

const card = (endpoint: string, streaming = true) => ({
  name: 'remote',
  description: 'a remote agent',
  supportedInterfaces: [{ url: endpoint, protocolBinding: 'JSONRPC', protocolVersion: '1.0' }],
  version: '1.0.0',
  capabilities: { streaming },
  defaultInputModes: ['text/plain'],
  defaultOutputModes: ['text/plain'],
  skills: [],
});

const options = (allowPrivate = true, timeoutMs = 2000, maxBytes = 4096) => ({
  allowPrivate,
  dispatcher: webhookDispatcher(allowPrivate, timeoutMs, 'card URL'),
  timeoutMs,
  maxBytes,
});

const json =
  (body: unknown): RequestListener =>
  (_req, res) =>
    res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify(body));

describe('fetchCard', () => {
  it('takes a card, with the credential as a bearer token, and follows a redirect on the same host', async () => {
    let authorization: string | undefined;
    const base = await serve((req, res) => {
      if (req.url === '/old') return void res.writeHead(301, { Location: '/card' }).end();
      authorization = req.headers.authorization;
      json(card('http://127.0.0.1:1/a2a', false))(req, res);
    });
    const got = await fetchCard(`${base}/old`, { ...options(), credential: 'secret-1' });
    expect(got).toMatchObject({ streaming: false, card: { name: 'remote', description: 'a remote agent' } });
    expect(JSON.parse(got.json)).toMatchObject({ name: 'remote' });
    expect(authorization).toBe('Bearer secret-1');
  });

  it('refuses a private address when A2A_ALLOW_PRIVATE_NETWORK is off, naming the address and the setting', async () => {
    const base = await serve(json(card('http://127.0.0.1:1/a2a')));
    await expect(fetchCard(`${base}/card`, options(false))).rejects.toThrow(
      "the card URL's address 127.0.0.1 is a private or internal address; set A2A_ALLOW_PRIVATE_NETWORK=true to allow it",
    );
    await expect(fetchCard('http://localhost:1/card', options(false))).rejects.toThrow(/localhost is a private or internal address/);
    await expect(fetchCard('http://[::1]:1/card', options(false))).rejects.toThrow(CardRefused);
  });

  it('refuses an oversized card, declared or streamed', async () => {
    const declared = await serve(json({ name: 'x'.repeat(10_000) }));
    await expect(fetchCard(`${declared}/card`, options())).rejects.toThrow('the card is larger than 4096 bytes');
    const streamed = await serve((_req, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      for (let i = 0; i < 10; i++) res.write('x'.repeat(1000));
      res.end();
    });
    await expect(fetchCard(`${streamed}/card`, options())).rejects.toThrow('the card is larger than 4096 bytes');
  });

  it('refuses a card that does not answer in time', async () => {
    const slow = await serve(() => undefined);
    await expect(fetchCard(`${slow}/card`, options(true, 300))).rejects.toThrow('the card URL did not answer within 300 ms');
  });

  it('refuses a redirect to another host', async () => {
    const other = await serve(json(card('http://127.0.0.1:1/a2a')));
    const base = await serve((_req, res) => res.writeHead(302, { Location: `${other.replace('127.0.0.1', 'localhost')}/card` }).end());
    await expect(fetchCard(`${base}/card`, options())).rejects.toThrow(/the card URL redirects to another host \(http:\/\/localhost:\d+\)/);
  });

  it('refuses what is not a card: not JSON, an error status, no JSON-RPC interface', async () => {
    const text = await serve((_req, res) => res.writeHead(200).end('hello'));
    await expect(fetchCard(`${text}/card`, options())).rejects.toThrow('the card is not JSON');
    const missing = await serve((_req, res) => res.writeHead(404).end());
    await expect(fetchCard(`${missing}/card`, options())).rejects.toThrow('the card URL answered 404');
    const grpc = await serve(
      json({ ...card('http://127.0.0.1:1/a2a'), supportedInterfaces: [{ url: 'http://127.0.0.1:1', protocolBinding: 'GRPC', protocolVersion: '1.0' }] }),
    );
    await expect(fetchCard(`${grpc}/card`, options())).rejects.toThrow(/names no JSON-RPC interface/);
  });
});

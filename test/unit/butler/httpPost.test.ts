// The model client's HTTP/1.1 exchange (on undici's pool) against a raw TCP server that writes
// responses by hand, one byte at a time: every way a body may be delimited,
// kept-alive connections reused and closed ones dropped, and failures before and after the head.
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createPoster, type Poster } from '../../../src/butler/httpPost.js';

let server: net.Server | undefined;
let poster: Poster | undefined;
afterEach(async () => {
  poster?.close();
  await new Promise((resolve) => server?.close(resolve) ?? resolve(undefined));
  server = undefined;
});

/** A server that reads one request per `answers` entry on each connection and writes its answer byte by byte. */
async function serve(answer: (request: string, socket: net.Socket) => string | undefined) {
  const requests: string[] = [];
  let connections = 0;
  server = net.createServer((socket) => {
    connections++;
    let pending = '';
    socket.on('data', (chunk) => {
      pending += chunk.toString('latin1');
      for (;;) {
        const headEnd = pending.indexOf('\r\n\r\n');
        if (headEnd < 0) return;
        const length = Number(/content-length: (\d+)/i.exec(pending.slice(0, headEnd))?.[1] ?? 0);
        if (pending.length < headEnd + 4 + length) return;
        const request = pending.slice(0, headEnd + 4 + length);
        pending = pending.slice(request.length);
        requests.push(request);
        const text = answer(request, socket);
        if (text === undefined) return;
        const bytes = Buffer.from(text, 'utf8');
        for (let i = 0; i < bytes.length; i++) socket.write(bytes.subarray(i, i + 1));
        if (/connection: close/i.test(text)) socket.end();
      }
    });
    socket.on('error', () => undefined);
  });
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: new URL(`http://127.0.0.1:${port}/v1/chat?x=1`), requests, connections: () => connections };
}

function post(p: Poster, body = 'hello') {
  return new Promise<{ status: number; body: string }>((resolve, reject) => {
    let status = 0;
    const chunks: Buffer[] = [];
    p.post([Buffer.from(body.slice(0, 2)), Buffer.from(body.slice(2))], {
      head: (s) => (status = s),
      data: (c) => chunks.push(Buffer.from(c)),
      end: () => resolve({ status, body: Buffer.concat(chunks).toString('utf8') }),
      error: (err, answered) => reject(Object.assign(err, { answered })),
    });
  });
}

describe("Butler's HTTP POST exchange", () => {
  it('sends the request line, headers and body, and reads chunked, sized and close-delimited bodies, byte by byte', async () => {
    const answers = [
      'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5;ext=1\r\nhéll\r\n5\r\no ⟨\r\n0\r\nX-Trailer: y\r\n\r\n',
      'HTTP/1.1 201 Created\r\nContent-Length: 6\r\n\r\nsized!',
      'HTTP/1.1 500 Oops\r\nConnection: close\r\n\r\nuntil the end',
    ];
    const s = await serve(() => answers.shift());
    poster = createPoster(s.url, { headers: { authorization: 'Bearer t' }, keepConnections: 4 });
    expect(await post(poster, 'ⓑody')).toEqual({ status: 200, body: 'héllo ⟨' });
    expect(await post(poster)).toEqual({ status: 201, body: 'sized!' });
    expect(await post(poster)).toEqual({ status: 500, body: 'until the end' });
    const [head, sent] = s.requests[0]!.split('\r\n\r\n');
    const lines = head!.split('\r\n');
    expect(lines[0]).toBe('POST /v1/chat?x=1 HTTP/1.1');
    expect(lines.map((l) => l.toLowerCase())).toEqual(
      expect.arrayContaining([`host: ${s.url.host}`, 'authorization: bearer t', `content-length: ${Buffer.byteLength('ⓑody')}`]),
    );
    expect(sent).toBe(Buffer.from('ⓑody').toString('latin1'));
    // Connections are kept alive: three exchanges, one after the other, never needed three (the pool
    // may open a second when the next request comes while the last response is still finishing).
    expect(s.connections()).toBeLessThanOrEqual(2);
  });

  it('sends again on a new connection, once, when a kept-alive one was closed as it was reused', async () => {
    let n = 0;
    const s = await serve((_request, socket) => {
      n++;
      if (n === 2) return void socket.destroy();
      return `HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\n${n}`;
    });
    poster = createPoster(s.url, { headers: {}, keepConnections: 4 });
    expect((await post(poster)).body).toBe('1');
    expect((await post(poster)).body).toBe('3');
    expect(s.connections()).toBe(2);
  });

  it('drops a kept-alive connection the server closes while it waits in the pool', async () => {
    let n = 0;
    const s = await serve((_request, socket) => {
      n++;
      setTimeout(() => socket.end(), 10);
      return `HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\n${n}`;
    });
    poster = createPoster(s.url, { headers: {}, keepConnections: 4 });
    expect((await post(poster)).body).toBe('1');
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect((await post(poster)).body).toBe('2');
    expect(s.requests).toHaveLength(2);
    expect(s.connections()).toBe(2);
  });

  it('fails a response cut short, saying whether its head had come', async () => {
    const s = await serve((_request, socket) => {
      socket.end('HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nab');
      return undefined;
    });
    poster = createPoster(s.url, { headers: {}, keepConnections: 4 });
    await expect(post(poster)).rejects.toMatchObject({ answered: true });

    const refused = createPoster(new URL('http://127.0.0.1:1/'), { headers: {}, keepConnections: 1 });
    await expect(post(refused)).rejects.toMatchObject({ answered: false });
  });

  it('drops a connection on abort, with no handler called after it', async () => {
    const s = await serve(() => 'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n1\r\na\r\n');
    poster = createPoster(s.url, { headers: {}, keepConnections: 4 });
    const seen: string[] = [];
    const exchange = poster.post([Buffer.from('x')], {
      head: () => seen.push('head'),
      data: () => {
        seen.push('data');
        exchange.abort();
      },
      end: () => seen.push('end'),
      error: () => seen.push('error'),
    });
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(seen).toEqual(['head', 'data']);
  });
});

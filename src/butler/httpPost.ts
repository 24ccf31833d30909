// POST a body and stream the response back, over kept-alive HTTP/1.1 connections (plain or TLS):
// the one exchange Butler's model client makes. Written on net/tls sockets rather than node:http:
// at a thousand streamed answers, node:http's request and response objects and its readable
// stream per response cost about a sixth of the hub's CPU, for features this exchange never uses.
// It reads what a server may send back: a status line and headers (1xx skipped), then a body that
// is chunked, of a given length, or ends with the connection.
import net from 'node:net';
import tls from 'node:tls';

export interface PostHandlers {
  /** The response's status line and headers are in. */
  head(status: number): void;
  /** A piece of the body (de-chunked). */
  data(chunk: Buffer): void;
  /** The body is complete. */
  end(): void;
  /** The exchange failed; `answered`: a response head had come. */
  error(err: Error, answered: boolean): void;
}

export interface PostExchange {
  /** Drops the exchange and its connection; no handler is called after it. */
  abort(): void;
}

export interface Poster {
  /** Posts the body made of `parts`, in order. */
  post(parts: readonly Buffer[], handlers: PostHandlers): PostExchange;
  /** Closes the idle connections. */
  close(): void;
}

export interface PosterOptions {
  headers: Readonly<Record<string, string>>;
  /** Idle connections kept for the next exchanges. */
  keepConnections: number;
}

type Socket = net.Socket;

const CRLF_CRLF = Buffer.from('\r\n\r\n');
/** A response head longer than this is refused (node:http's default limit). */
const MAX_HEAD = 16 * 1024;

export function createPoster(url: URL, options: PosterOptions): Poster {
  const secure = url.protocol === 'https:';
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const port = Number(url.port) || (secure ? 443 : 80);
  const fixedHead = [`POST ${url.pathname}${url.search} HTTP/1.1`, `host: ${url.host}`, ...Object.entries(options.headers).map(([k, v]) => `${k}: ${v}`)].join(
    '\r\n',
  );
  /** Kept-alive connections waiting for the next exchange; the newest is taken first. */
  const idle: Connection[] = [];

  /** An idle connection the server closed (or wrote to) is dropped from the pool. */
  const drop = (connection: Connection) => {
    const at = idle.indexOf(connection);
    if (at >= 0) idle.splice(at, 1);
    connection.socket.destroy();
  };

  const connect = (): Connection =>
    new Connection(
      secure ? tls.connect({ host, port, servername: net.isIP(host) ? undefined : host, ALPNProtocols: ['http/1.1'] }) : net.connect({ host, port }),
      drop,
    );

  function park(connection: Connection): void {
    if (idle.length >= options.keepConnections || connection.socket.destroyed) return void connection.socket.destroy();
    // An idle connection must not keep a stopping hub alive.
    connection.socket.unref();
    idle.push(connection);
  }

  function take(): { connection: Connection; reused: boolean } {
    for (;;) {
      const connection = idle.pop();
      if (!connection) return { connection: connect(), reused: false };
      if (connection.socket.destroyed) continue;
      connection.socket.ref();
      return { connection, reused: true };
    }
  }

  return {
    post(parts, handlers) {
      let length = 0;
      for (const part of parts) length += part.length;
      const head = Buffer.from(`${fixedHead}\r\ncontent-length: ${length}\r\n\r\n`);
      let exchange: Exchange | undefined;
      const start = (retry: boolean) => {
        const { connection, reused } = take();
        exchange = new Exchange(connection, handlers, {
          // A kept-alive connection the server closed just as it was reused: nothing came back, so
          // sending again on a new connection replays nothing (what node:http's users are told to do).
          retry: retry && reused ? () => start(false) : undefined,
          done: park,
        });
        const { socket } = connection;
        socket.cork();
        socket.write(head);
        for (const part of parts) socket.write(part);
        socket.uncork();
      };
      start(true);
      return { abort: () => exchange?.abort() };
    },
    close() {
      for (const connection of idle.splice(0)) connection.socket.destroy();
    },
  };
}

/**
 * One connection: its socket's listeners are attached once, for its whole life, and hand each
 * event to the exchange it carries; an event while it carries none drops it.
 */
class Connection {
  exchange: Exchange | undefined;

  constructor(
    readonly socket: Socket,
    drop: (connection: Connection) => void,
  ) {
    socket.on('data', (chunk: Buffer) => (this.exchange ? this.exchange.onData(chunk) : drop(this)));
    socket.on('end', () => (this.exchange ? this.exchange.onEnd() : drop(this)));
    socket.on('error', (err: Error) => (this.exchange ? this.exchange.fail(err) : drop(this)));
    socket.on('close', () => (this.exchange ? this.exchange.fail(hangUp()) : drop(this)));
  }
}

const hangUp = () => Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' });

/** How the body is delimited, once the head is read. */
type Framing = { kind: 'chunked' } | { kind: 'length'; left: number } | { kind: 'close' };

/** One request and its response on one connection. */
class Exchange {
  private buffered: Buffer | undefined;
  private answered = false;
  private heard = false;
  private over = false;
  private framing: Framing | undefined;
  private keepAlive = true;
  /** Chunked: bytes left in the current chunk; -1 while reading a size line, -2 in the trailers. */
  private chunkLeft = -1;
  /** Chunked: the CRLF after a chunk's data is still to come. */
  private chunkEnd = false;

  constructor(
    private readonly connection: Connection,
    private readonly handlers: PostHandlers,
    private readonly after: { retry?: () => void; done(connection: Connection): void },
  ) {
    connection.exchange = this;
  }

  abort(): void {
    if (this.over) return;
    this.over = true;
    this.connection.exchange = undefined;
    this.connection.socket.destroy();
  }

  fail(err: Error): void {
    if (this.over) return;
    this.over = true;
    this.connection.exchange = undefined;
    this.connection.socket.destroy();
    if (!this.heard && this.after.retry) this.after.retry();
    else this.handlers.error(err, this.answered);
  }

  private finish(): void {
    if (this.over) return;
    this.over = true;
    this.connection.exchange = undefined;
    if (this.keepAlive && this.buffered === undefined) this.after.done(this.connection);
    else this.connection.socket.destroy();
    this.handlers.end();
  }

  onEnd(): void {
    if (this.answered && this.framing?.kind === 'close') return this.finish();
    this.fail(hangUp());
  }

  onData(chunk: Buffer): void {
    this.heard = true;
    let data = this.buffered ? Buffer.concat([this.buffered, chunk]) : chunk;
    this.buffered = undefined;
    try {
      while (!this.over && data.length > 0) {
        if (!this.framing) {
          const rest = this.readHead(data);
          if (rest === undefined) return;
          data = rest;
        } else data = this.readBody(data);
      }
    } catch (err) {
      this.fail(err as Error);
    }
  }

  /** Reads a response head off the front of `data`; undefined until it is whole (kept for the next chunk). */
  private readHead(data: Buffer): Buffer | undefined {
    const at = data.indexOf(CRLF_CRLF);
    if (at < 0) {
      if (data.length > MAX_HEAD) throw new Error('the response head is too long');
      this.buffered = data;
      return undefined;
    }
    const lines = data.toString('latin1', 0, at).split('\r\n');
    const status = /^HTTP\/1\.([01]) (\d{3})/.exec(lines[0]!);
    if (!status) throw new Error('the response is not HTTP/1.x');
    const code = Number(status[2]);
    const rest = data.subarray(at + 4);
    // Interim responses (100 Continue and the like) come before the real one.
    if (code >= 100 && code < 200) return rest;
    let chunked = false;
    let length: number | undefined;
    let connection = status[1] === '1' ? 'keep-alive' : 'close';
    for (let i = 1; i < lines.length; i++) {
      const line = lines[i]!;
      const colon = line.indexOf(':');
      if (colon <= 0) continue;
      const name = line.slice(0, colon).trim().toLowerCase();
      const value = line
        .slice(colon + 1)
        .trim()
        .toLowerCase();
      if (name === 'transfer-encoding') chunked = value.split(',').at(-1)!.trim() === 'chunked';
      else if (name === 'content-length') length = Number(value);
      else if (name === 'connection') connection = value;
    }
    this.keepAlive = !connection.split(',').some((token) => token.trim() === 'close');
    if (chunked) this.framing = { kind: 'chunked' };
    else if (code === 204 || code === 304) this.framing = { kind: 'length', left: 0 };
    else if (length !== undefined && Number.isSafeInteger(length) && length >= 0) this.framing = { kind: 'length', left: length };
    else {
      this.framing = { kind: 'close' };
      this.keepAlive = false;
    }
    this.answered = true;
    this.handlers.head(code);
    if (!this.over && this.framing.kind === 'length' && this.framing.left === 0) this.finish();
    return rest;
  }

  /** Reads body bytes off the front of `data`; returns what is left after the body ended (nothing otherwise). */
  private readBody(data: Buffer): Buffer {
    const framing = this.framing!;
    if (framing.kind === 'close') {
      this.handlers.data(data);
      return EMPTY;
    }
    if (framing.kind === 'length') {
      const piece = data.length <= framing.left ? data : data.subarray(0, framing.left);
      framing.left -= piece.length;
      if (piece.length > 0) this.handlers.data(piece);
      if (framing.left === 0) {
        const rest = data.subarray(piece.length);
        if (rest.length > 0) this.keepAlive = false;
        this.finish();
      }
      return EMPTY;
    }
    return this.readChunked(data);
  }

  private readChunked(data: Buffer): Buffer {
    let at = 0;
    while (at < data.length && !this.over) {
      if (this.chunkLeft > 0) {
        const end = Math.min(data.length, at + this.chunkLeft);
        this.chunkLeft -= end - at;
        this.handlers.data(data.subarray(at, end));
        at = end;
        if (this.chunkLeft === 0) {
          this.chunkLeft = -1;
          this.chunkEnd = true;
        }
        continue;
      }
      // A line, read as bytes: the CRLF after a chunk, a size line, or a trailer line.
      const lf = data.indexOf(10, at);
      if (lf < 0) {
        if (data.length - at > MAX_HEAD) throw new Error('a chunk size line is too long');
        this.buffered = data.subarray(at);
        return EMPTY;
      }
      const lineStart = at;
      const lineEnd = lf > at && data[lf - 1] === 13 ? lf - 1 : lf;
      at = lf + 1;
      if (this.chunkEnd) {
        if (lineEnd !== lineStart) throw new Error('a chunk does not end with CRLF');
        this.chunkEnd = false;
      } else if (this.chunkLeft === -2) {
        // Trailers end with an empty line, and with them the body.
        if (lineEnd === lineStart) {
          if (at < data.length) this.keepAlive = false;
          this.finish();
        }
      } else this.chunkLeft = chunkSize(data, lineStart, lineEnd) || -2;
    }
    return EMPTY;
  }
}

const EMPTY = Buffer.alloc(0);

/** The size a chunk's size line gives (hex digits, then any `;extension`). */
function chunkSize(data: Buffer, start: number, end: number): number {
  let size = 0;
  let at = start;
  for (; at < end; at++) {
    const c = data[at]!;
    const digit = c >= 48 && c <= 57 ? c - 48 : c >= 97 && c <= 102 ? c - 87 : c >= 65 && c <= 70 ? c - 55 : -1;
    if (digit < 0) break;
    size = size * 16 + digit;
  }
  if (at === start || !Number.isSafeInteger(size)) throw new Error('a chunk size is not hexadecimal');
  return size;
}

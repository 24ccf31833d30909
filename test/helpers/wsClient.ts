// A WebSocket test client over a real socket: every frame is queued as it arrives, and tests take
// them in order with `next(type)`, which waits on the socket's events (never on a timer) and fails
// after `timeoutMs` with what did arrive.
import WebSocket from 'ws';

export interface Frame {
  type: string;
  id?: number;
  local_id?: string;
  conversation_id?: number;
  sender_id?: number;
  sender_name?: string;
  sender_role?: string;
  target_id?: number;
  payload?: any;
  timestamp?: string;
  stream_id?: string;
  [key: string]: unknown;
}

export interface WsClient {
  readonly socket: WebSocket;
  /** Every frame received so far (consumed or not). */
  readonly received: Frame[];
  send(frame: unknown): void;
  sendRaw(data: string | Buffer, options?: { binary?: boolean }): void;
  /** The next unconsumed frame of `type` (frames of other types before it are kept). */
  next(type: string, timeoutMs?: number): Promise<Frame>;
  /** The next unconsumed frame matching `predicate`. */
  nextWhere(predicate: (frame: Frame) => boolean, description: string, timeoutMs?: number): Promise<Frame>;
  /** Frames not consumed by next(). */
  pending(): Frame[];
  /** Resolves with the close code and reason once the socket is closed. */
  closed(timeoutMs?: number): Promise<{ code: number; reason: string }>;
  close(): Promise<void>;
}

export interface RefusedUpgrade {
  status: number;
  body: any;
}

function wsUrl(baseUrl: string, query: Record<string, string | number>): string {
  const url = new URL('/api/ws', baseUrl.replace(/^http/, 'ws'));
  for (const [k, v] of Object.entries(query)) url.searchParams.set(k, String(v));
  return url.toString();
}

/** Opens a socket; rejects with the refusal's status and JSON body when the upgrade is refused. */
export function connectWs(
  baseUrl: string,
  token: string | undefined,
  query: Record<string, string | number> = {},
  options: WebSocket.ClientOptions = {},
): Promise<WsClient> {
  const socket = new WebSocket(wsUrl(baseUrl, token === undefined ? query : { token, ...query }), options);
  const received: Frame[] = [];
  const unconsumed: Frame[] = [];
  let waiters: Array<() => void> = [];
  let closeInfo: { code: number; reason: string } | undefined;
  const wake = () => {
    const current = waiters;
    waiters = [];
    for (const w of current) w();
  };

  socket.on('message', (data, isBinary) => {
    const text = isBinary ? `<binary ${(data as Buffer).length} bytes>` : data.toString();
    const frame = JSON.parse(text) as Frame;
    received.push(frame);
    unconsumed.push(frame);
    wake();
  });
  // A socket that breaks (1006) says why, when the ws library knows (an invalid frame, a reset).
  let lastError: string | undefined;
  socket.on('error', (err) => (lastError = err.message));
  socket.on('close', (code, reason) => {
    closeInfo = { code, reason: reason.toString() || (lastError ? `error: ${lastError}` : '') };
    wake();
  });

  function waitFor<T>(check: () => T | undefined, describe: () => string, timeoutMs: number): Promise<T> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        waiters = waiters.filter((w) => w !== attempt);
        reject(new Error(`timed out after ${timeoutMs} ms waiting for ${describe()}`));
      }, timeoutMs);
      const attempt = () => {
        const value = check();
        if (value !== undefined) {
          clearTimeout(timer);
          resolve(value);
        } else if (closeInfo && !describe().startsWith('close')) {
          clearTimeout(timer);
          reject(new Error(`socket closed (${closeInfo.code} ${closeInfo.reason}) while waiting for ${describe()}`));
        } else {
          waiters.push(attempt);
        }
      };
      attempt();
    });
  }

  const client: WsClient = {
    socket,
    received,
    send(frame) {
      socket.send(JSON.stringify(frame));
    },
    sendRaw(data, options = {}) {
      socket.send(data, { binary: options.binary ?? false });
    },
    nextWhere(predicate, description, timeoutMs = 5000) {
      return waitFor(
        () => {
          const index = unconsumed.findIndex(predicate);
          return index < 0 ? undefined : unconsumed.splice(index, 1)[0];
        },
        () => `${description}; unconsumed: ${JSON.stringify(unconsumed.map((f) => f.type))}`,
        timeoutMs,
      );
    },
    next(type, timeoutMs = 5000) {
      return client.nextWhere((f) => f.type === type, `a ${type} frame`, timeoutMs);
    },
    pending() {
      return [...unconsumed];
    },
    closed(timeoutMs = 5000) {
      return waitFor(
        () => closeInfo,
        () => 'close of the socket',
        timeoutMs,
      );
    },
    async close() {
      if (closeInfo) return;
      socket.close(1000);
      await client.closed();
    },
  };

  return new Promise((resolve, reject) => {
    socket.once('open', () => resolve(client));
    socket.once('unexpected-response', (_req, res) => {
      let body = '';
      res.on('data', (chunk: Buffer) => (body += chunk.toString()));
      res.on('end', () => {
        let parsed: unknown = body;
        try {
          parsed = JSON.parse(body);
        } catch {
          // keep the raw text for the assertion message
        }
        reject(Object.assign(new Error(`upgrade refused with ${res.statusCode}: ${body}`), { status: res.statusCode, body: parsed }));
      });
    });
    socket.once('error', (err) => reject(err));
  });
}

/** Expects the upgrade to be refused; returns its status and body. */
export async function refusedUpgrade(baseUrl: string, token: string | undefined, query: Record<string, string | number> = {}): Promise<RefusedUpgrade> {
  try {
    const client = await connectWs(baseUrl, token, query);
    await client.close();
  } catch (err) {
    const e = err as { status?: number; body?: unknown };
    if (e.status !== undefined) return { status: e.status, body: e.body };
    throw err;
  }
  throw new Error('the upgrade was accepted');
}

/**
 * The sockets a test file opens, so `afterEach(clients.closeAll)` leaves none behind: `connect` to the
 * hub at `baseUrl`, or `connectTo` any hub (a cluster's nodes).
 */
export function wsClientPool(baseUrl?: () => string) {
  let open: WsClient[] = [];
  const connectTo = async (url: string, token: string, query?: Record<string, string | number>): Promise<WsClient> => {
    const client = await connectWs(url, token, query);
    open.push(client);
    return client;
  };
  return {
    connectTo,
    async connect(token: string, query?: Record<string, string | number>): Promise<WsClient> {
      if (!baseUrl) throw new Error('this pool has no hub of its own: use connectTo(url, …)');
      return connectTo(baseUrl(), token, query);
    },
    async closeAll(): Promise<void> {
      const closing = open;
      open = [];
      await Promise.all(closing.map((c) => c.close()));
    },
  };
}

export type WsClientPool = ReturnType<typeof wsClientPool>;

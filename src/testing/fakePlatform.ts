// A fake Feishu/Lark on loopback, speaking the platform's real protocols: the auth API, message
// send, bot info, the long-connection endpoint and the long-connection socket with its protobuf
// frames (pbbp2: pings, pongs, event data frames and the client's acknowledgements). Tests push
// events, and read the acknowledgements and sends it recorded.
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import protobuf from 'protobufjs';
import { WebSocketServer, type WebSocket } from 'ws';

// SeqID and LogID are uint64 on the wire; read and written here as uint32 (the same varint bytes for
// the small numbers the fake uses), because the SDK unsets protobufjs' Long support process-wide.
const PBBP2 = `
syntax = "proto2";
package pbbp2;
message Header { required string key = 1; required string value = 2; }
message Frame {
  required uint32 SeqID = 1;
  required uint32 LogID = 2;
  required int32 service = 3;
  required int32 method = 4;
  repeated Header headers = 5;
  optional string payloadEncoding = 6;
  optional string payloadType = 7;
  optional bytes payload = 8;
  optional string LogIDNew = 9;
}`;
const Frame = protobuf.parse(PBBP2).root.lookupType('pbbp2.Frame');
/** Frame methods: control (ping/pong) and data (events). */
const CONTROL = 0;
const DATA = 1;
const SERVICE_ID = 7;

interface FrameObject {
  SeqID: number;
  LogID: number;
  service: number;
  method: number;
  headers: Array<{ key: string; value: string }>;
  payload?: Uint8Array;
}

export type AuthMode = 'ok' | 'hang' | 'garbage' | 'no-token';
export type SendMode = 'ok' | 'reject' | 'hang';

export interface RecordedSend {
  chat_id: string;
  msg_type: string;
  text: string;
  receive_id_type: string | null;
}

export interface RecordedAck {
  /** The platform message id of the acknowledged event. */
  message_id: string;
  code: number;
}

export interface MessageEventInput {
  messageId?: string;
  chatId: string;
  chatType?: 'p2p' | 'group';
  openId: string;
  senderType?: string;
  text?: string;
  messageType?: string;
  content?: string;
  /** Open ids mentioned (the bot's own is FAKE_BOT_OPEN_ID). */
  mentions?: string[];
  token?: string;
}

export const FAKE_BOT_OPEN_ID = 'ou_fakebot0000000000000000000000';

/** A v2 `im.message.receive_v1` event as the platform sends it. */
export function messageEvent(input: MessageEventInput, appId = 'cli_0000000000000000'): Record<string, unknown> {
  const mentions = (input.mentions ?? []).map((openId, i) => ({ key: `@_user_${i + 1}`, id: { open_id: openId }, name: `user ${i + 1}`, tenant_key: 't1' }));
  const text = `${mentions.map((m) => `${m.key} `).join('')}${input.text ?? 'hello'}`;
  return {
    schema: '2.0',
    header: {
      event_id: randomUUID(),
      event_type: 'im.message.receive_v1',
      create_time: String(Date.now()),
      token: input.token ?? '',
      app_id: appId,
      tenant_key: 't1',
    },
    event: {
      sender: {
        sender_id: { open_id: input.openId, union_id: `on_${input.openId}`, user_id: `u_${input.openId}` },
        sender_type: input.senderType ?? 'user',
        tenant_key: 't1',
      },
      message: {
        message_id: input.messageId ?? `om_${randomUUID().replace(/-/g, '')}`,
        chat_id: input.chatId,
        chat_type: input.chatType ?? 'p2p',
        message_type: input.messageType ?? 'text',
        content: input.content ?? JSON.stringify({ text }),
        create_time: String(Date.now()),
        mentions,
      },
    },
  };
}

export interface FakePlatform {
  readonly url: string;
  auth: AuthMode;
  send: SendMode;
  readonly sends: RecordedSend[];
  readonly acks: RecordedAck[];
  /** Long-connection sockets opened so far (reconnects count). */
  readonly connectionsOpened: number;
  /** Requests the platform saw, as `METHOD path`. */
  readonly requests: string[];
  registerApp(appId: string, appSecret: string): void;
  /** Sends an event over every open long connection; resolves with the event's message id. */
  pushEvent(event: Record<string, unknown>): string;
  /** Sends a data frame with this payload as it is (malformed-input tests). */
  pushRawPayload(payload: Uint8Array): string;
  waitForConnections(count: number, timeoutMs?: number): Promise<void>;
  /** Resolves once no long connection is open. */
  waitForNoConnection(timeoutMs?: number): Promise<void>;
  waitForAck(messageId: string, timeoutMs?: number): Promise<RecordedAck>;
  waitForSends(count: number, timeoutMs?: number): Promise<RecordedSend[]>;
  /** Terminates every open long connection (the client should come back). */
  dropConnections(): void;
  close(): Promise<void>;
}

/** Resolves when `check` holds, re-checking whenever the platform records something. */
function waiter() {
  const listeners = new Set<() => void>();
  return {
    notify: () => listeners.forEach((l) => l()),
    until<T>(check: () => T | undefined, timeoutMs: number, what: string): Promise<T> {
      return new Promise((resolve, reject) => {
        const attempt = () => {
          const value = check();
          if (value === undefined) return false;
          listeners.delete(attempt);
          clearTimeout(timer);
          resolve(value);
          return true;
        };
        const timer = setTimeout(() => {
          listeners.delete(attempt);
          reject(new Error(`fake platform: timed out after ${timeoutMs} ms waiting for ${what}`));
        }, timeoutMs);
        if (!attempt()) listeners.add(attempt);
      });
    },
  };
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

export async function startFakePlatform(): Promise<FakePlatform> {
  const apps = new Map<string, string>();
  const tokens = new Set<string>();
  const sends: RecordedSend[] = [];
  const acks: RecordedAck[] = [];
  const requests: string[] = [];
  /** Frame id (header message_id) → the event's platform message id. */
  const pending = new Map<string, string>();
  const sockets = new Set<WebSocket>();
  const tcp = new Set<Socket>();
  const changed = waiter();
  let connectionsOpened = 0;
  let seq = 0;

  const json = (res: ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { 'Content-Type': 'application/json' }).end(JSON.stringify(body));
  };

  const platform = {
    url: '',
    auth: 'ok' as AuthMode,
    send: 'ok' as SendMode,
    sends,
    acks,
    requests,
  };

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://fake');
    requests.push(`${req.method} ${url.pathname}`);
    const body = req.method === 'POST' ? await readBody(req) : '';
    let data: Record<string, unknown> = {};
    try {
      data = body ? (JSON.parse(body) as Record<string, unknown>) : {};
    } catch {
      return json(res, 400, { code: 9499, msg: 'bad json' });
    }
    const bearer = /^Bearer (.+)$/.exec(req.headers['authorization'] ?? '')?.[1];

    if (url.pathname === '/open-apis/auth/v3/tenant_access_token/internal' && req.method === 'POST') {
      if (platform.auth === 'hang') return; // never answers; the socket is destroyed on close
      if (platform.auth === 'garbage') return void res.writeHead(502, { 'Content-Type': 'text/html' }).end('<html>bad gateway</html>');
      if (platform.auth === 'no-token') return json(res, 200, { code: 0, msg: 'ok' });
      if (apps.get(String(data['app_id'])) !== data['app_secret']) return json(res, 200, { code: 10014, msg: 'app secret invalid' });
      const token = `t-${randomUUID()}`;
      tokens.add(token);
      return json(res, 200, { code: 0, msg: 'ok', tenant_access_token: token, expire: 7200 });
    }
    if (url.pathname === '/open-apis/im/v1/messages' && req.method === 'POST') {
      if (!bearer || !tokens.has(bearer)) return json(res, 400, { code: 99991663, msg: 'Invalid access token for authorization' });
      if (platform.send === 'hang') return;
      if (platform.send === 'reject') return json(res, 400, { code: 230002, msg: 'Bot/User can NOT be out of the chat.' });
      let text = '';
      try {
        text = String((JSON.parse(String(data['content'])) as { text?: unknown }).text ?? '');
      } catch {
        return json(res, 400, { code: 230001, msg: 'invalid message content' });
      }
      sends.push({ chat_id: String(data['receive_id']), msg_type: String(data['msg_type']), text, receive_id_type: url.searchParams.get('receive_id_type') });
      changed.notify();
      return json(res, 200, { code: 0, msg: 'success', data: { message_id: `om_sent_${sends.length}`, chat_id: data['receive_id'] } });
    }
    if (url.pathname === '/open-apis/bot/v3/info' && req.method === 'GET') {
      if (!bearer || !tokens.has(bearer)) return json(res, 400, { code: 99991663, msg: 'Invalid access token for authorization' });
      return json(res, 200, { code: 0, msg: 'ok', bot: { open_id: FAKE_BOT_OPEN_ID, app_name: 'fake bot' } });
    }
    if (url.pathname === '/callback/ws/endpoint' && req.method === 'POST') {
      if (apps.get(String(data['AppID'])) !== data['AppSecret']) return json(res, 200, { code: 514, msg: 'auth failed', data: {} });
      const address = `${platform.url.replace('http', 'ws')}/ws?device_id=${randomUUID()}&service_id=${SERVICE_ID}&ticket=${randomUUID()}`;
      return json(res, 200, {
        code: 0,
        msg: 'ok',
        data: { URL: address, ClientConfig: { PingInterval: 120, ReconnectCount: -1, ReconnectInterval: 120, ReconnectNonce: 30 } },
      });
    }
    json(res, 404, { code: 404, msg: 'not found' });
  }

  const server: Server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => json(res, 500, { code: 500, msg: String(err) }));
  });
  server.on('connection', (socket) => {
    tcp.add(socket);
    socket.on('close', () => tcp.delete(socket));
  });
  const wss = new WebSocketServer({ noServer: true });
  server.on('upgrade', (req, socket, head) => {
    if (!req.url?.startsWith('/ws?')) return socket.destroy();
    wss.handleUpgrade(req, socket, head, (ws) => {
      sockets.add(ws);
      connectionsOpened++;
      changed.notify();
      ws.on('close', () => {
        sockets.delete(ws);
        changed.notify();
      });
      ws.on('message', (data: Buffer) => onClientFrame(ws, data));
    });
  });

  function encode(frame: FrameObject): Uint8Array {
    return Frame.encode(Frame.fromObject(frame)).finish();
  }

  function onClientFrame(ws: WebSocket, data: Buffer): void {
    const frame = Frame.toObject(Frame.decode(data), { longs: Number, bytes: Buffer, defaults: true }) as FrameObject;
    const header = (key: string) => frame.headers.find((h) => h.key === key)?.value;
    if (frame.method === CONTROL && header('type') === 'ping') {
      const pong = { PingInterval: 120, ReconnectCount: -1, ReconnectInterval: 120, ReconnectNonce: 30 };
      ws.send(encode({ ...frame, headers: [{ key: 'type', value: 'pong' }], payload: Buffer.from(JSON.stringify(pong)) }));
      return;
    }
    if (frame.method === DATA) {
      const frameId = header('message_id') ?? '';
      const messageId = pending.get(frameId);
      if (messageId === undefined) return;
      pending.delete(frameId);
      const answer = JSON.parse(Buffer.from(frame.payload ?? []).toString('utf8')) as { code: number };
      acks.push({ message_id: messageId, code: answer.code });
      changed.notify();
    }
  }

  function pushFrame(payload: Uint8Array, messageId: string): void {
    const frameId = randomUUID();
    pending.set(frameId, messageId);
    const frame = encode({
      SeqID: ++seq,
      LogID: seq,
      service: SERVICE_ID,
      method: DATA,
      headers: [
        { key: 'type', value: 'event' },
        { key: 'message_id', value: frameId },
        { key: 'sum', value: '1' },
        { key: 'seq', value: '0' },
        { key: 'trace_id', value: randomUUID() },
      ],
      payload,
    });
    if (sockets.size === 0) throw new Error('fake platform: no long connection is open');
    for (const ws of sockets) ws.send(frame);
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  platform.url = `http://127.0.0.1:${port}`;

  // defineProperties keeps the getter live (Object.assign would copy today's value).
  return Object.defineProperties(
    platform,
    Object.getOwnPropertyDescriptors({
      get connectionsOpened() {
        return connectionsOpened;
      },
      registerApp(appId: string, appSecret: string) {
        apps.set(appId, appSecret);
      },
      pushEvent(event: Record<string, unknown>): string {
        const messageId = String((event['event'] as { message?: { message_id?: unknown } } | undefined)?.message?.message_id ?? randomUUID());
        pushFrame(Buffer.from(JSON.stringify(event)), messageId);
        return messageId;
      },
      pushRawPayload(payload: Uint8Array): string {
        const id = `raw_${randomUUID()}`;
        pushFrame(payload, id);
        return id;
      },
      waitForConnections(count: number, timeoutMs = 10_000) {
        return changed
          .until(() => (connectionsOpened >= count && sockets.size > 0 ? true : undefined), timeoutMs, `${count} long connections`)
          .then(() => undefined);
      },
      waitForNoConnection(timeoutMs = 10_000) {
        return changed.until(() => (sockets.size === 0 ? true : undefined), timeoutMs, 'every long connection to close').then(() => undefined);
      },
      waitForAck(messageId: string, timeoutMs = 3000) {
        return changed.until(() => acks.find((a) => a.message_id === messageId), timeoutMs, `the acknowledgement of ${messageId}`);
      },
      waitForSends(count: number, timeoutMs = 10_000) {
        return changed.until(() => (sends.length >= count ? [...sends] : undefined), timeoutMs, `${count} sent messages`);
      },
      dropConnections() {
        for (const ws of sockets) ws.terminate();
      },
      async close() {
        for (const ws of sockets) ws.terminate();
        wss.close();
        for (const socket of tcp) socket.destroy();
        await new Promise<void>((resolve) => server.close(() => resolve()));
      },
    }),
  ) as FakePlatform;
}

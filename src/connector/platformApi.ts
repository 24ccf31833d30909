// The chat platform's Open API over HTTP (Feishu/Lark): tenant token, text messages, bot info.
// Plain fetch rather than the SDK's Client: every call here needs its own timeout and a precise
// outcome (accepted, rejected with the platform's code, timed out, unreachable, not a platform
// answer), and the SDK logs failed requests with their bodies, which carry app_secret.
import { z } from 'zod';

export type PlatformOutcome<T> =
  | { kind: 'accepted'; value: T }
  | { kind: 'rejected'; code: number; msg: string; status: number }
  | { kind: 'timeout'; afterMs: number }
  | { kind: 'unreachable'; reason: string }
  | { kind: 'invalid'; reason: string };

/** One line for logs and answers; never contains credentials. */
export function describeOutcome(outcome: PlatformOutcome<unknown>): string {
  switch (outcome.kind) {
    case 'accepted':
      return 'accepted';
    case 'rejected':
      return `rejected by the platform: code ${outcome.code}${outcome.msg ? `, ${outcome.msg}` : ''} (HTTP ${outcome.status})`;
    case 'timeout':
      return `no answer from the platform within ${outcome.afterMs} ms`;
    case 'unreachable':
      return `platform unreachable: ${outcome.reason}`;
    case 'invalid':
      return `unexpected answer from the platform: ${outcome.reason}`;
  }
}

const envelope = z.object({ code: z.number(), msg: z.string().optional() }).passthrough();
const tokenAnswer = z.object({ tenant_access_token: z.string().min(1), expire: z.number().positive() });
const sendAnswer = z.object({ data: z.object({ message_id: z.string() }).passthrough() });
const botAnswer = z.object({ bot: z.object({ open_id: z.string().min(1), app_name: z.string().optional() }).passthrough() });

/** Codes the platform answers when a tenant token is no longer valid: fetch a new one, once. */
const STALE_TOKEN_CODES = new Set([99991661, 99991663, 99991668]);
/** A token is renewed this long before the platform says it expires. */
const TOKEN_MARGIN_MS = 3 * 60_000;

export interface PlatformApiOptions {
  baseUrl: string;
  timeoutMs: number;
  appId: string;
  appSecret: string;
  now?: () => number;
}

export function createPlatformApi(options: PlatformApiOptions) {
  const base = options.baseUrl.replace(/\/+$/, '');
  const now = options.now ?? Date.now;
  let cached: { token: string; expiresAt: number } | undefined;

  async function call<T>(path: string, init: { method: 'GET' | 'POST'; body?: unknown; token?: string }, shape: z.ZodType<T>): Promise<PlatformOutcome<T>> {
    const headers: Record<string, string> = { 'Content-Type': 'application/json; charset=utf-8' };
    if (init.token) headers['Authorization'] = `Bearer ${init.token}`;
    let status: number;
    let text: string;
    try {
      // One deadline covers the connection, the headers and the body.
      const signal = AbortSignal.timeout(options.timeoutMs);
      const res = await fetch(`${base}${path}`, {
        method: init.method,
        headers,
        body: init.body === undefined ? undefined : JSON.stringify(init.body),
        signal,
      });
      status = res.status;
      text = await res.text();
    } catch (err) {
      const e = err as Error & { cause?: { code?: string; message?: string } };
      if (e.name === 'TimeoutError' || e.name === 'AbortError') return { kind: 'timeout', afterMs: options.timeoutMs };
      return { kind: 'unreachable', reason: e.cause?.code ?? e.cause?.message ?? e.message };
    }
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      return { kind: 'invalid', reason: `HTTP ${status}, not JSON` };
    }
    const head = envelope.safeParse(json);
    if (!head.success) return { kind: 'invalid', reason: `HTTP ${status}, no result code` };
    if (head.data.code !== 0) return { kind: 'rejected', code: head.data.code, msg: head.data.msg ?? '', status };
    const body = shape.safeParse(json);
    if (!body.success) return { kind: 'invalid', reason: `HTTP ${status}, code 0 without the expected fields` };
    return { kind: 'accepted', value: body.data };
  }

  /** Asks the auth API for a tenant token: the platform's verdict on the credentials. */
  async function tenantToken(): Promise<PlatformOutcome<string>> {
    if (cached && cached.expiresAt > now()) return { kind: 'accepted', value: cached.token };
    const outcome = await call(
      '/open-apis/auth/v3/tenant_access_token/internal',
      { method: 'POST', body: { app_id: options.appId, app_secret: options.appSecret } },
      tokenAnswer,
    );
    if (outcome.kind !== 'accepted') return outcome;
    cached = { token: outcome.value.tenant_access_token, expiresAt: now() + outcome.value.expire * 1000 - TOKEN_MARGIN_MS };
    return { kind: 'accepted', value: cached.token };
  }

  /** A call that needs a tenant token; a token the platform calls stale is renewed once. */
  async function authorised<T>(path: string, init: { method: 'GET' | 'POST'; body?: unknown }, shape: z.ZodType<T>): Promise<PlatformOutcome<T>> {
    for (let attempt = 0; ; attempt++) {
      const token = await tenantToken();
      if (token.kind !== 'accepted') return token;
      const outcome = await call(path, { ...init, token: token.value }, shape);
      if (outcome.kind === 'rejected' && STALE_TOKEN_CODES.has(outcome.code) && attempt === 0) {
        cached = undefined;
        continue;
      }
      return outcome;
    }
  }

  return {
    /** Verification: are these credentials accepted by the auth API? */
    async verify(): Promise<PlatformOutcome<true>> {
      cached = undefined;
      const outcome = await tenantToken();
      return outcome.kind === 'accepted' ? { kind: 'accepted', value: true } : outcome;
    },

    /** Sends a text message to a chat; the value is the platform's message id. */
    async sendText(chatId: string, text: string): Promise<PlatformOutcome<string>> {
      const outcome = await authorised(
        '/open-apis/im/v1/messages?receive_id_type=chat_id',
        { method: 'POST', body: { receive_id: chatId, msg_type: 'text', content: JSON.stringify({ text }) } },
        sendAnswer,
      );
      return outcome.kind === 'accepted' ? { kind: 'accepted', value: outcome.value.data.message_id } : outcome;
    },

    /** The bot's own open_id, to recognise a mention of it in a group. */
    async botOpenId(): Promise<PlatformOutcome<string>> {
      const outcome = await authorised('/open-apis/bot/v3/info', { method: 'GET' }, botAnswer);
      return outcome.kind === 'accepted' ? { kind: 'accepted', value: outcome.value.bot.open_id } : outcome;
    },
  };
}
export type PlatformApi = ReturnType<typeof createPlatformApi>;

// Fetching a remote A2A agent's card (registration, and the proxy's periodic check): behind the SSRF
// guard (webhookGuard.ts: no private or loopback address unless A2A_ALLOW_PRIVATE_NETWORK=true, checked
// on the URL and on every address its name resolves to), with a deadline over the whole exchange, a
// cap on the card's size, and redirects followed only on the same origin. The card is normalised by
// the SDK's resolver (a v0.3 card becomes a v1.0 one) and must name a JSON-RPC interface the guard
// allows too.
import { AgentCard } from '@a2a-js/sdk';
import { DefaultAgentCardResolver } from '@a2a-js/sdk/client';
import { fetch, type Dispatcher } from 'undici';
import { checkWebhookUrl, WebhookRefused } from '../webhookGuard.js';

/** Why a card was not taken; the message is fit for the admin who registered it. */
export class CardRefused extends Error {
  override name = 'CardRefused';
}

export interface CardFetchOptions {
  allowPrivate: boolean;
  /** The guarded HTTP client (webhookDispatcher with the card URL's refusal wording). */
  dispatcher: Dispatcher;
  timeoutMs: number;
  maxBytes: number;
  /** Sent as `Authorization: Bearer <credential>` when set. */
  credential?: string;
  signal?: AbortSignal;
}

/** A card as the hub keeps it: the SDK's object, and the interface the proxy calls. */
export interface FetchedCard {
  card: AgentCard;
  /** The card in the SDK's JSON form (stored). */
  json: string;
  streaming: boolean;
}

const MAX_REDIRECTS = 3;
const resolver = new DefaultAgentCardResolver({ legacyCompat: { enabled: true } });

function guarded<T>(run: () => T): T {
  try {
    return run();
  } catch (err) {
    if (err instanceof WebhookRefused) throw new CardRefused(err.message);
    throw err;
  }
}

/** The first WebhookRefused in an error's cause chain (undici wraps the lookup's refusal). */
function refusalIn(err: unknown): WebhookRefused | undefined {
  for (let e: unknown = err, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) if (e instanceof WebhookRefused) return e;
  return undefined;
}

async function readCapped(body: AsyncIterable<Uint8Array> | null, maxBytes: number): Promise<string> {
  if (body === null) return '';
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += chunk.byteLength;
    if (size > maxBytes) throw new CardRefused(`the card is larger than ${maxBytes} bytes`);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** GET the card, following redirects on the same origin only. */
async function get(url: URL, options: CardFetchOptions, signal: AbortSignal): Promise<string> {
  let at = url;
  for (let hop = 0; ; hop++) {
    const headers: Record<string, string> = { Accept: 'application/json' };
    if (options.credential) headers.Authorization = `Bearer ${options.credential}`;
    const res = await fetch(at, { headers, redirect: 'manual', dispatcher: options.dispatcher, signal });
    if (res.status >= 300 && res.status < 400) {
      await res.body?.cancel();
      const location = res.headers.get('location');
      if (!location) throw new CardRefused(`the card URL answered ${res.status} without a Location`);
      const next = guarded(() => checkWebhookUrl(new URL(location, at).href, options.allowPrivate, 'card URL'));
      if (next.origin !== at.origin) throw new CardRefused(`the card URL redirects to another host (${next.origin}); give the card's final URL`);
      if (hop + 1 >= MAX_REDIRECTS) throw new CardRefused(`the card URL redirects more than ${MAX_REDIRECTS} times`);
      at = next;
      continue;
    }
    if (res.status !== 200) {
      await res.body?.cancel();
      throw new CardRefused(`the card URL answered ${res.status}`);
    }
    const declared = Number(res.headers.get('content-length') ?? NaN);
    if (declared > options.maxBytes) {
      await res.body?.cancel();
      throw new CardRefused(`the card is larger than ${options.maxBytes} bytes`);
    }
    return readCapped(res.body, options.maxBytes);
  }
}

/** Fetches and checks the card at `cardUrl`; throws CardRefused with a reason fit for an admin. */
export async function fetchCard(cardUrl: string, options: CardFetchOptions): Promise<FetchedCard> {
  const url = guarded(() => checkWebhookUrl(cardUrl, options.allowPrivate, 'card URL'));
  const deadline = AbortSignal.timeout(options.timeoutMs);
  const signal = options.signal ? AbortSignal.any([deadline, options.signal]) : deadline;
  let text: string;
  try {
    text = await get(url, options, signal);
  } catch (err) {
    if (err instanceof CardRefused) throw err;
    const refusal = refusalIn(err);
    if (refusal) throw new CardRefused(refusal.message);
    if (deadline.aborted) throw new CardRefused(`the card URL did not answer within ${options.timeoutMs} ms`);
    throw new CardRefused(
      `the card URL could not be fetched: ${err instanceof Error ? (err.cause instanceof Error ? err.cause.message : err.message) : String(err)}`,
    );
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    throw new CardRefused('the card is not JSON');
  }
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw new CardRefused('the card is not a JSON object');
  let card: AgentCard;
  try {
    card = resolver.normalizeAgentCard(raw);
  } catch (err) {
    throw new CardRefused(`the card is not an A2A agent card: ${err instanceof Error ? err.message : String(err)}`);
  }
  if (!card.name) throw new CardRefused('the card has no name');
  const rpc = card.supportedInterfaces.filter((i) => i.protocolBinding === 'JSONRPC');
  if (rpc.length === 0) throw new CardRefused('the card names no JSON-RPC interface (the hub speaks the JSON-RPC binding)');
  for (const i of rpc) guarded(() => checkWebhookUrl(i.url, options.allowPrivate, 'agent endpoint'));
  return { card, json: JSON.stringify(AgentCard.toJSON(card)), streaming: card.capabilities?.streaming === true };
}

// The official A2A SDK's client (@a2a-js/sdk) pointed at a test hub: a fetch that sends the caller's
// bearer token, the card resolver, and a JSON-RPC client built from an agent's card (v1.0, or the
// v0.3 compatibility transport).
import type { StreamResponse } from '@a2a-js/sdk';
import { ClientFactory, DefaultAgentCardResolver, JsonRpcTransportFactory, type Client } from '@a2a-js/sdk/client';

/** fetch with `Authorization: Bearer <token>` on every request (none without a token). */
export function bearerFetch(token: string | undefined): typeof fetch {
  return (input, init) => {
    const headers = new Headers(init?.headers);
    if (token !== undefined) headers.set('Authorization', `Bearer ${token}`);
    return fetch(input, { ...init, headers });
  };
}

/** The card resolver of the SDK, with the caller's credential. */
export const cardResolver = (token: string | undefined) => new DefaultAgentCardResolver({ fetchImpl: bearerFetch(token) });

/**
 * A client for the agent whose card is at `${baseUrl}.well-known/agent-card.json` (hub URL +
 * `/a2a/agents/<name>/`, or the hub itself for Butler). `legacy`: through the card's v0.3 interface,
 * with the SDK's v0.3 transport (the wire a v0.3 client speaks).
 */
export async function a2aClient(baseUrl: string, token: string | undefined, options: { legacy?: boolean } = {}): Promise<Client> {
  const fetchImpl = bearerFetch(token);
  const resolver = new DefaultAgentCardResolver({ fetchImpl });
  const factory = new ClientFactory({
    transports: [new JsonRpcTransportFactory({ fetchImpl, legacyCompat: { enabled: options.legacy === true } })],
    cardResolver: resolver,
  });
  if (!options.legacy) return factory.createFromUrl(baseUrl);
  const card = await resolver.resolve(baseUrl);
  return factory.createFromAgentCard({ ...card, supportedInterfaces: card.supportedInterfaces.filter((i) => i.protocolVersion === '0.3') });
}

/**
 * Follows a task with SubscribeToTask: resolves once the subscription is in place (its first event,
 * the task as it is, has come), with the promise of every event until the stream ends.
 */
export async function followTask(client: Client, taskId: string): Promise<{ first: StreamResponse; events: Promise<StreamResponse[]> }> {
  const stream = client.resubscribeTask({ id: taskId, tenant: '' });
  const first = await stream.next();
  if (first.done) throw new Error(`the subscription to task ${taskId} ended at once`);
  const events = (async () => {
    const all = [first.value];
    for await (const event of stream) all.push(event);
    return all;
  })();
  return { first: first.value, events };
}

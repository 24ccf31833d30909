// A2A (src/a2a/): the hub's own card (Butler) at the well-known path, one card per agent under
// /a2a/agents/{username}, the catalogue of cards a caller may use, and each card's JSON-RPC
// endpoint. Cards carry the origin the caller used (publicOrigin), an ETag and Cache-Control; an
// If-None-Match that matches gets 304. Streaming methods answer as Server-Sent Events.
import { createHash } from 'node:crypto';
import { z } from 'zod';
import type { CardService } from '../../a2a/cardService.js';
import type { A2aEndpoint, RpcAnswer } from '../../a2a/endpoint.js';
import { catalogueEntry, usernameParams } from '../../protocol/a2a.js';
import type { Request, Response } from '../context.js';
import { publicOrigin } from '../publicOrigin.js';
import { routeGroup } from '../route.js';

export interface A2aCardDeps {
  a2aCards: Pick<CardService, 'hubCard' | 'agentCard' | 'catalogue'>;
  a2aEndpoint: Pick<A2aEndpoint, 'call'>;
}

const SSE_HEADERS = { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache', 'X-Accel-Buffering': 'no' };
const sseEvent = (event: unknown) => `data: ${JSON.stringify(event)}\n\n`;

/** Writes a stream's events as they come; the caller going away stops the stream (and its task waits on). */
async function sendStream(res: Response, answer: Extract<RpcAnswer, { kind: 'stream' }>): Promise<void> {
  let gone = false;
  res.on('close', () => {
    gone = true;
    void answer.rest.return?.(undefined);
  });
  res.status(200).set(SSE_HEADERS);
  if (answer.first !== undefined) res.write(sseEvent(answer.first));
  try {
    for (;;) {
      const next = await answer.rest.next();
      if (next.done || gone) break;
      res.write(sseEvent(next.value));
    }
  } catch (err) {
    if (!gone) res.write(`event: error\n${sseEvent(answer.errorOf(err))}`);
  } finally {
    if (!gone) res.end();
  }
}

/** How long a client may keep a card: agents' descriptions change rarely, presence is not in it. */
const CARD_MAX_AGE_SECONDS = 300;
const cardSchema = z.record(z.string(), z.unknown()).meta({ description: 'an A2A v1.0 AgentCard (JSON form)' });

function sendCard(req: Request, res: Response, card: Record<string, unknown>, anonymous: boolean): void {
  const body = JSON.stringify(card);
  const etag = `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`;
  res.setHeader('ETag', etag);
  // A card names the origin the caller used, and without A2A_PUBLIC_CARDS only a credential opens it.
  res.setHeader('Cache-Control', `${anonymous ? 'public' : 'private'}, max-age=${CARD_MAX_AGE_SECONDS}`);
  res.setHeader('Vary', 'Authorization, Host, X-Forwarded-Host, X-Forwarded-Proto');
  const match = req.headers['if-none-match'];
  if (match !== undefined && match.split(',').some((tag) => tag.trim() === etag || tag.trim() === `W/${etag}`)) {
    res.status(304).end();
    return;
  }
  res.status(200).type('application/json').send(body);
}

const cardResponses = {
  200: { description: 'the card', schema: cardSchema, headers: { ETag: 'the card version', 'Cache-Control': 'how long it may be kept' } },
  304: { description: 'If-None-Match matched: the card is unchanged' },
};

const route = routeGroup<A2aCardDeps>('a2a');

export const a2aCardRoutes = [
  route({
    method: 'GET',
    path: '/.well-known/agent-card.json',
    access: 'cards',
    summary: "The hub's A2A agent card: Butler (ask, command an agent with a human's approval, relay)",
    responses: cardResponses,
    handler: async ({ req, res, caller }, { a2aCards }) => sendCard(req, res, await a2aCards.hubCard(publicOrigin(req)), caller === undefined),
  }),
  route({
    method: 'GET',
    path: '/a2a/agents/:username/.well-known/agent-card.json',
    access: 'cards',
    summary: "An agent's A2A card, built from its row (description, kind, skills); Butler's is the hub's card",
    params: usernameParams,
    responses: cardResponses,
    errors: { 404: 'no agent of that name' },
    handler: async ({ req, res, params, caller }, { a2aCards }) =>
      sendCard(req, res, await a2aCards.agentCard(params.username, publicOrigin(req)), caller === undefined),
  }),
  route({
    method: 'POST',
    path: '/a2a/agents/:username',
    access: 'authenticated',
    summary: "An agent's A2A endpoint (JSON-RPC 2.0, A2A v1.0; v0.3 method names when A2A-Version is 0.3 or absent)",
    description:
      'SendMessage, SendStreamingMessage and SubscribeToTask (answered as Server-Sent Events), GetTask, ListTasks, CancelTask. ' +
      'A message becomes a stored CHAT from the caller to the agent in the thread its contextId names; the answer completes the task. ' +
      "A2A errors are JSON-RPC errors in a 200 answer; the hub's own refusals (credentials, unknown agent, an agent calling another agent) are HTTP errors.",
    params: usernameParams,
    body: z.unknown().meta({ description: 'a JSON-RPC 2.0 request' }),
    responses: {
      200: { description: 'the JSON-RPC response, or a text/event-stream of them', schema: z.record(z.string(), z.unknown()) },
    },
    errors: { 403: 'an agent may send tasks to Butler only', 404: 'no agent of that name' },
    handler: async ({ req, res, params, caller, body }, { a2aEndpoint }) => {
      const answer = await a2aEndpoint.call({ caller, username: params.username, origin: publicOrigin(req), body, headers: req.headers });
      if (answer.kind === 'json') {
        res.status(answer.status).json(answer.body);
        return;
      }
      await sendStream(res, answer);
    },
  }),
  route({
    method: 'GET',
    path: '/a2a/agents',
    access: 'authenticated',
    summary: 'The A2A cards the caller may use: Butler and, for a human, every agent (agents reach other agents only through Butler)',
    responses: { 200: { description: 'Butler first, then agents by id', schema: z.array(catalogueEntry) } },
    handler: async ({ req, caller }, { a2aCards }) => a2aCards.catalogue(caller, publicOrigin(req)),
  }),
];

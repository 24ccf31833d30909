// /mcp on the hub's own port: the Streamable HTTP endpoint of the MCP server. Each request is
// authenticated first (401 with a challenge before its body is read), then its body is read within
// the hub's body limit and handed, as a web-standard Request, to the SDK's handler, whose Response
// is streamed back (webBridge.ts). The SDK serves the 2026-07-28 revision and, statelessly, the
// 2025 ones, with a fresh server per request built for the caller (server.ts).
//
// A request ends early when its client hangs up, when the access token it came with is revoked (on
// any node), when its user's access ends (deleted, role changed), and when the hub stops. Each person
// with calls open has their own SDK handler, so resource change notifications reach only them.
// The agent list (hub://agents) is one every person may read: a presence change anywhere in the hub
// tells each person's handler, at most once per AGENTS_WINDOW_MS (coalesce.ts).
import { createMcpHandler, type McpHttpHandler } from '@modelcontextprotocol/server';
import type { Logger } from 'pino';
import { toPrincipal } from '../delivery/directory.js';
import { Errors } from '../errors.js';
import type { Handler, Request, Response } from '../http/context.js';
import { publicOrigin } from '../http/publicOrigin.js';
import type { BearerCheck, McpCaller } from './bearer.js';
import { watchChanges } from './changes.js';
import { coalesce } from './coalesce.js';
import type { McpDeps, McpRequestScope } from './context.js';
import { AGENTS_URI } from './resources.js';
import { createMcpServerFor } from './server.js';
import { onClientGone, readBody, sendWebResponse, toWebRequest } from './webBridge.js';
import type { Timers } from '../clock.js';

export const MCP_PATH = '/mcp';

/** At most one hub://agents notification per person per this long, however many agents move. */
export const AGENTS_WINDOW_MS = 1000;

export interface McpEndpointDeps {
  bearer: BearerCheck;
  tools: McpDeps;
  bodyLimitBytes: number;
  logger: Logger;
  /** Revoked access tokens, from this node and the others. */
  onTokenRevoked(listener: (tokenId: number) => void): () => void;
  /** Agents' presence changed (connected, disconnected, reported), on this node or another. */
  onAgentsChanged(listener: () => void): () => void;
  /** AGENTS_WINDOW_MS unless given. */
  agentsWindowMs?: number;
  /** Runs the agent list's notification window (the hub's timers). */
  timers?: Timers;
}

type Ending = 'client gone' | 'token revoked' | 'access ended' | 'hub stopping';

interface OpenRequest {
  caller: McpCaller;
  controller: AbortController;
  ending?: Ending;
}

export function createMcpEndpoint(deps: McpEndpointDeps) {
  const { logger } = deps;
  const open = new Set<OpenRequest>();
  let stopping = false;

  const end = (request: OpenRequest, why: Ending) => {
    if (request.controller.signal.aborted) return;
    request.ending = why;
    request.controller.abort(new Error(why));
  };

  const unsubscribe = deps.onTokenRevoked((tokenId) => {
    for (const request of open) if (request.caller.tokenId === tokenId) end(request, 'token revoked');
  });

  const buildHandler = (): McpHttpHandler =>
    createMcpHandler(
      ({ authInfo, era }) => {
        const scope = authInfo?.extra?.['scope'] as McpRequestScope | undefined;
        // The entry below always passes the scope; a request without one never reaches a factory.
        if (!scope) throw new Error('an MCP server was asked for without a caller');
        return createMcpServerFor(deps.tools, scope, era);
      },
      {
        maxRequestBodySize: deps.bodyLimitBytes,
        onerror: (err) => logger.debug({ err: err.message }, 'MCP request refused'),
      },
    );

  // One SDK handler per person with calls open: its subscription streams hear only that person's
  // changes (changes.ts). It goes when their last call ends.
  const people = new Map<number, { handler: McpHttpHandler; open: number; unwatch: () => void }>();

  // Only subscriptions of hub://agents hear it (the SDK filters by URI); humans all may list agents.
  const agentsChanged = coalesce(
    deps.agentsWindowMs ?? AGENTS_WINDOW_MS,
    () => {
      for (const entry of people.values()) entry.handler.notify.resourceUpdated(AGENTS_URI);
    },
    deps.timers,
  );
  const stopAgents = deps.onAgentsChanged(() => {
    if (people.size > 0) agentsChanged.poke();
  });

  function acquire(caller: McpCaller): McpHttpHandler {
    const userId = caller.user.id;
    let entry = people.get(userId);
    if (!entry) {
      const handler = buildHandler();
      const unwatch = watchChanges(deps.tools.router, toPrincipal(caller.user), handler.notify, () => {
        for (const request of open) if (request.caller.user.id === userId) end(request, 'access ended');
      });
      entry = { handler, open: 0, unwatch };
      people.set(userId, entry);
    }
    entry.open++;
    return entry.handler;
  }

  function release(userId: number): void {
    const entry = people.get(userId);
    if (!entry || --entry.open > 0) return;
    people.delete(userId);
    entry.unwatch();
    void entry.handler.close();
  }

  async function serve(req: Request, res: Response): Promise<void> {
    const request: OpenRequest = { caller: undefined as unknown as McpCaller, controller: new AbortController() };
    const stopWatching = onClientGone(res, () => end(request, 'client gone'));
    let acquired = false;
    try {
      if (stopping) throw Errors.unavailable('the hub is shutting down');
      const outcome = await deps.bearer(req.headers['authorization']);
      if (!outcome.ok) {
        res.setHeader('WWW-Authenticate', outcome.challenge);
        res.status(outcome.status).json({ error: outcome.message });
        return;
      }
      request.caller = outcome.caller;
      const origin = publicOrigin(req);
      if (Number(req.headers['content-length']) > deps.bodyLimitBytes) {
        res.setHeader('Connection', 'close');
        throw Errors.bodyTooLarge(deps.bodyLimitBytes);
      }
      const body = req.method === 'POST' ? await readBody(req, deps.bodyLimitBytes) : undefined;
      if (req.method === 'POST' && body === undefined) {
        res.setHeader('Connection', 'close');
        throw Errors.bodyTooLarge(deps.bodyLimitBytes);
      }
      if (request.controller.signal.aborted) return;
      open.add(request);
      const handler = acquire(request.caller);
      acquired = true;
      const signal = request.controller.signal;
      const scope: McpRequestScope = { caller: request.caller, signal, origin };
      const authInfo = { token: 'bearer', clientId: `user-${request.caller.user.id}`, scopes: [], extra: { scope } };
      try {
        const response = await handler.fetch(toWebRequest(req, body, signal), { authInfo });
        await sendWebResponse(res, response, signal);
      } catch (err) {
        // Ended by the hub or the client while the SDK was still answering: afterEnd says why.
        if (!signal.aborted) throw err;
      }
      afterEnd(request, res);
    } finally {
      open.delete(request);
      if (acquired) release(request.caller.user.id);
      stopWatching();
    }
  }

  /** A request the hub ended (revocation, stop) closes its answer; a client that left has no answer to close. */
  function afterEnd(request: OpenRequest, res: Response): void {
    if (request.ending === undefined || request.ending === 'client gone') return;
    if (!res.headersSent) {
      if (request.ending === 'token revoked' || request.ending === 'access ended') {
        const message = request.ending === 'token revoked' ? 'the access token was revoked' : "the user's access ended";
        res.setHeader('WWW-Authenticate', `Bearer realm="agent-hub", error="invalid_token", error_description="${message}"`);
        res.status(401).json({ error: message });
      } else {
        res.status(503).json({ error: 'the hub is shutting down' });
      }
    } else if (!res.writableEnded) {
      res.end();
    }
  }

  const route: Handler = (req, res, next) => {
    serve(req, res).catch(next);
  };

  return {
    route,
    /** Requests open right now. */
    get openRequests(): number {
      return open.size;
    },
    /** Refuses new requests and ends the open ones (their streams close). */
    async stop(): Promise<void> {
      stopping = true;
      unsubscribe();
      stopAgents();
      agentsChanged.stop();
      for (const request of open) end(request, 'hub stopping');
      await Promise.all([...people.values()].map((entry) => entry.handler.close()));
    },
  };
}
export type McpEndpoint = ReturnType<typeof createMcpEndpoint>;

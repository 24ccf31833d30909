// What the MCP tools and resources are given: the hub's services and ports they act through (the
// same ones the HTTP routes and the WebSocket use, so an MCP caller gets what the dashboard would
// give them and nothing more), and the caller of one request.
import type { Logger } from 'pino';
import type { RouterEvent } from '../actors/router.js';
import type { Authorizations } from '../butler/authorizations.js';
import type { Pipeline } from '../delivery/pipeline.js';
import type { AgentsService } from '../services/agents.js';
import type { ChatService } from '../services/chat.js';
import type { MessagesService } from '../services/messages.js';
import type { UsersRepo } from '../store/repositories/users.js';
import type { ReadGate } from '../http/readGate.js';
import type { McpCaller } from './bearer.js';
import type { McpMeter } from './metrics.js';

export interface McpDeps {
  users: Pick<UsersRepo, 'findById' | 'findByUsername'>;
  agents: Pick<AgentsService, 'list'>;
  messages: Pick<MessagesService, 'list'>;
  chat: Pick<ChatService, 'history' | 'threadMessages' | 'listThreads'>;
  authorizations: Pick<Authorizations, 'list' | 'respond'>;
  pipeline: Pick<Pipeline, 'post' | 'admit'>;
  router: { send(event: RouterEvent): void };
  /** The per-caller bound on expensive reads (READS_PER_CALLER), shared with the HTTP routes. */
  readGate: Pick<ReadGate, 'enter' | 'refusal'>;
  /** How long ask_butler waits for Butler's answer (BUTLER_TIMEOUT and a little more). */
  butlerAnswerMs: number;
  meter: McpMeter;
  logger: Logger;
}

/** One MCP request: who it acts as, and a signal that aborts when the client goes or the token is revoked. */
export interface McpRequestScope {
  caller: McpCaller;
  signal: AbortSignal;
  /** The origin the client reached the hub by (behind TRUST_PROXY, the proxy's): for URLs handed back. */
  origin: string;
}

// The MCP stage: /mcp on the hub's port, acting through the services the HTTP API and the WebSocket
// use. Built after the features and before the HTTP app, which mounts it.
import type { Logger } from 'pino';
import type { Butler } from '../butler/index.js';
import type { Timers } from '../clock.js';
import type { Config } from '../config.js';
import { createBearerCheck } from '../mcp/bearer.js';
import { createMcpEndpoint, MCP_PATH } from '../mcp/endpoint.js';
import { createMcpMeter } from '../mcp/metrics.js';
import type { ProtocolEndpoint } from '../http/app.js';
import type { ReadGate } from '../http/readGate.js';
import type { Metrics } from '../metrics/registry.js';
import type { Core } from './core.js';
import type { Services } from './features.js';
import type { Repos } from './storage.js';

export interface McpOptions {
  config: Config;
  logger: Logger;
  repos: Repos;
  core: Core;
  services: Services;
  butler: Butler;
  metrics: Metrics;
  /** The per-caller gate of expensive reads the HTTP routes use too (READS_PER_CALLER). */
  readGate: ReadGate;
  timers: Timers;
}

/** A little past Butler's own limit for one answer, so Butler's own "took too long" answer arrives first. */
const BUTLER_WAIT_SLACK_MS = 5_000;

export function createMcpEdge(options: McpOptions) {
  const { config, services } = options;
  const endpoint = createMcpEndpoint({
    bearer: createBearerCheck({
      authenticate: (credential) => services.auth.authenticate(credential),
      accessToken: (credential) => services.accessTokens.authenticate(credential),
    }),
    tools: {
      users: options.repos.users,
      agents: services.agents,
      messages: services.messages,
      chat: services.chat,
      authorizations: options.butler.authorizations,
      pipeline: options.core.pipeline,
      router: options.core.router,
      readGate: options.readGate,
      butlerAnswerMs: config.butler.turnTimeoutMs + BUTLER_WAIT_SLACK_MS,
      meter: createMcpMeter(options.metrics.factory),
      logger: options.logger,
    },
    bodyLimitBytes: config.http.bodyLimitBytes,
    logger: options.logger,
    onTokenRevoked: (listener) => services.accessTokens.onRevoked(listener),
    onAgentsChanged: (listener) => options.core.presenceChanges.onChange(listener),
    timers: options.timers,
  });
  const protocol: ProtocolEndpoint = { path: MCP_PATH, methods: ['post', 'get', 'delete'], handler: endpoint.route };
  return { endpoint, protocol };
}

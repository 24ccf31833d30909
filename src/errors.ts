// The one error catalogue: every expected failure has a stable code, an HTTP status and a
// WebSocket close code, so both transports answer the same condition the same way. The codes
// themselves are wire constants (protocol/errors.ts), shared with the client.
import { CloseCode, ErrorStatus, type ErrorKind } from './protocol/errors.js';

const closeCodeOf: Record<ErrorKind, number> = {
  bad_request: CloseCode.policyViolation,
  unauthorized: CloseCode.unauthorized,
  forbidden: CloseCode.forbidden,
  not_found: CloseCode.notFound,
  conflict: CloseCode.policyViolation,
  payload_too_large: CloseCode.tooLarge,
  upgrade_required: CloseCode.policyViolation,
  rate_limited: CloseCode.policyViolation,
  internal: CloseCode.internal,
  not_implemented: CloseCode.policyViolation,
  unavailable: CloseCode.goingAway,
};

export class HubError extends Error {
  readonly status: number;
  readonly closeCode: number;
  constructor(
    readonly kind: ErrorKind,
    message: string,
    /** Seconds a client should wait before trying again (sent as Retry-After). */
    readonly retryAfterSeconds?: number,
  ) {
    super(message);
    this.name = 'HubError';
    this.status = ErrorStatus[kind];
    this.closeCode = closeCodeOf[kind];
  }
}

/** Retry-After of a 503 while the store is away (see Errors.storeUnavailable). */
export const STORE_RETRY_AFTER_SECONDS = 5;

/** Named errors with the exact texts of the wire contract. */
export const Errors = {
  badRequest: (message: string) => new HubError('bad_request', message),
  invalidBody: () => new HubError('bad_request', 'invalid request body'),
  authHeaderRequired: () => new HubError('unauthorized', 'authorization header required'),
  authHeaderFormat: () => new HubError('unauthorized', 'invalid authorization header format'),
  invalidToken: () => new HubError('unauthorized', 'invalid token'),
  tokenRequired: () => new HubError('unauthorized', 'token is required: connect to /api/ws?token=<JWT or api_token>'),
  invalidCredentials: () => new HubError('unauthorized', 'invalid credentials'),
  adminRequired: () => new HubError('forbidden', 'admin access required'),
  mockDisabled: () => new HubError('forbidden', 'mock endpoints are disabled in production'),
  registrationDisabled: () => new HubError('forbidden', 'self-registration is disabled on this hub'),
  forbidden: (message: string) => new HubError('forbidden', message),
  // Butler runs inside the hub: nothing from outside may speak or authenticate as it.
  butlerHasNoToken: () => new HubError('forbidden', 'Butler runs inside the hub and has no api_token'),
  actingAsButler: () => new HubError('forbidden', 'nobody may post as Butler: it runs inside the hub'),
  directiveFromClient: () => new HubError('forbidden', 'only Butler sends directives: a chat message may not start with [DIRECTIVE]'),
  butlerStreamId: (prefix: string) =>
    new HubError('forbidden', `stream ids starting with "${prefix}" belong to Butler's requests: use one only in an answer sent to Butler`),
  notFound: (what: string) => new HubError('not_found', `${what} not found`),
  routeNotFound: () => new HubError('not_found', 'not found'),
  malformedPath: () => new HubError('bad_request', 'the URL path has a malformed %-escape'),
  dashboardNotBuilt: () => new HubError('not_found', 'the dashboard is not built: run `npm run build`, then restart the hub'),
  dashboardOff: () => new HubError('not_found', 'this hub serves no dashboard (WEB_DIR is empty)'),
  usernameTaken: () => new HubError('conflict', 'username already exists'),
  tokenTaken: () => new HubError('conflict', 'api_token is already in use by another agent'),
  conflict: (message: string) => new HubError('conflict', message),
  bodyTooLarge: (limit: number) => new HubError('payload_too_large', `request body is larger than ${limit} bytes`),
  rateLimited: (message: string, retryAfterSeconds?: number) => new HubError('rate_limited', message, retryAfterSeconds),
  unavailable: (message: string) => new HubError('unavailable', message),
  readTimedOut: (timeoutMs: number) =>
    new HubError(
      'unavailable',
      `the read took longer than the hub allows (DB_READ_TIMEOUT, ${timeoutMs / 1000} s): try again later, or ask for less (a shorter window, a narrower filter)`,
      Math.max(1, Math.ceil(timeoutMs / 1000)),
    ),
  tooManyReads: (limit: number) =>
    new HubError(
      'rate_limited',
      `too many expensive reads in progress for this caller (at most ${limit} at once, READS_PER_CALLER): wait for one to finish`,
      1,
    ),
  // Seconds: about one DB_CONNECT_TIMEOUT, the time the hub needs to find out whether the store is back.
  storeUnavailable: () => new HubError('unavailable', 'the store is unavailable; try again shortly', STORE_RETRY_AFTER_SECONDS),
  writeQueueFull: () =>
    new HubError('unavailable', 'the hub is waiting for its store and holds as many messages as it may; send it again shortly', STORE_RETRY_AFTER_SECONDS),
  notImplemented: (message: string) => new HubError('not_implemented', message),
  metricsDisabled: () => new HubError('not_found', 'metrics are disabled on this hub (METRICS_ENABLED=false)'),
  upgradeRequired: () =>
    new HubError('upgrade_required', 'this endpoint speaks WebSocket: connect with a WebSocket client to /api/ws?token=<JWT or api_token>'),
} as const;

export const INTERNAL_ERROR_BODY = { error: 'Internal server error' } as const;

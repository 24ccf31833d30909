// The hub's error and close codes as clients see them: the HTTP status of each error kind, the
// WebSocket close codes and the `code` of ERROR frames. The hub's error catalogue (src/errors.ts)
// and the client both read them here.

export const ErrorStatus = {
  bad_request: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  payload_too_large: 413,
  upgrade_required: 426,
  rate_limited: 429,
  internal: 500,
  not_implemented: 501,
  unavailable: 503,
} as const;
export type ErrorKind = keyof typeof ErrorStatus;

/**
 * WebSocket close codes the hub uses (4000–4999 is the application range). A client should
 * reconnect after every code but 4001 and 4003, which need new credentials.
 */
export const CloseCode = {
  normal: 1000,
  /** The hub is shutting down. */
  goingAway: 1001,
  policyViolation: 1008,
  /** A frame above the hard size limit (the transport cannot even read it). */
  tooLarge: 1009,
  internal: 1011,
  /** The credential stopped working: agent token rotated, agent or user deleted. */
  unauthorized: 4001,
  /** The JWT of the session expired: log in again. */
  tokenExpired: 4002,
  forbidden: 4003,
  notFound: 4004,
  /** The user's role changed: reconnect to be routed with the new rights. */
  roleChanged: 4005,
  /** Kept sending past the rate limit after being told with ERROR frames. */
  rateLimited: 4008,
  /** Kept sending frames the hub cannot accept after being told with ERROR frames. */
  invalidFrames: 4010,
  /** Read too slowly: its outbound buffer passed WS_MAX_BUFFERED_BYTES. Resume with `since`. */
  slowConsumer: 4011,
} as const;
export type CloseCodeValue = (typeof CloseCode)[keyof typeof CloseCode];

/** `payload.code` of an ERROR frame: the decoding failures, then the catalogue's kinds. */
export const FrameErrorCodes = [
  'invalid_json',
  'invalid_frame',
  'unknown_type',
  'invalid_payload',
  'frame_too_large',
  ...(Object.keys(ErrorStatus) as ErrorKind[]),
] as const;
export type FrameErrorCode = (typeof FrameErrorCodes)[number];

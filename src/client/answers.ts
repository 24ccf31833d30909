// Who answered an HTTP request or a WebSocket upgrade that failed: the hub (its `{"error"}` body, wire.md
// §3) or something in front of it — a load balancer's own 503 page, a proxy's 502 — so a message never
// blames the hub, or the credential, for what a balancer said.

/** A failed answer, as far as the client could read it. */
export interface HttpAnswer {
  status: number;
  /** The `error` text when the body had the hub's error shape; absent for anyone else's body. */
  hubError?: string;
  /** The Server header, when there was one. */
  server?: string;
}

/** The `error` text of a body in the hub's error shape (`{"error": "<text>"}`), else undefined. */
export function hubErrorOf(text: string): string | undefined {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return undefined;
  }
  const error = (body as { error?: unknown } | null)?.error;
  return typeof body === 'object' && body !== null && !Array.isArray(body) && typeof error === 'string' ? error : undefined;
}

/** Statuses that mean "not now" rather than "no": the hub (or every node behind a balancer) is unavailable. */
const UNAVAILABLE = new Set([502, 503, 504]);

/**
 * One readable clause: `the hub is unavailable (503 from a proxy)`, `the hub is unavailable (503: the
 * store is unreachable)`, `the hub answered 403 (admin access required)`.
 */
export function describeAnswer(answer: HttpAnswer): string {
  const { status, hubError } = answer;
  if (hubError !== undefined) return UNAVAILABLE.has(status) ? `the hub is unavailable (${status}: ${hubError})` : `the hub answered ${status} (${hubError})`;
  const from = `from ${answer.server || 'a proxy'}`;
  return UNAVAILABLE.has(status) ? `the hub is unavailable (${status} ${from})` : `the hub's address answered ${status} ${from}, not from the hub`;
}

// Names the place and the cause when a request never got an answer: fetch's own message ("fetch
// failed", "Failed to fetch") names neither. Shared by the REST helper and the example agents.

/** The cause of a failed request, as short as an operator reads it: `ECONNREFUSED`, `timed out after 10 s`. */
export function networkCause(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  if (err.name === 'TimeoutError') return 'timed out';
  if (err.name === 'AbortError') return 'aborted';
  const cause = (err as { cause?: unknown }).cause;
  if (cause instanceof Error) {
    const code = (cause as { code?: unknown }).code;
    // AggregateError (every address refused) carries its code on the outer error, its parts inside.
    if (typeof code === 'string') return code;
    return networkCause(cause);
  }
  const code = (err as { code?: unknown }).code;
  return typeof code === 'string' ? code : err.message;
}

/** A URL fit for a message: its query (which may carry a key) and credentials left out. */
export function safeUrl(url: string | URL): string {
  const parsed = new URL(url);
  parsed.search = '';
  parsed.username = '';
  parsed.password = '';
  parsed.hash = '';
  return parsed.toString();
}

/**
 * `<what> at <url> unreachable: <cause>` as a TypeError (what fetch itself throws when there is no
 * answer, so callers that tell "unreachable" from "refused" by type keep working), the original as `cause`.
 */
export function unreachable(what: string, url: string | URL, err: unknown): TypeError {
  return new TypeError(`${what} at ${safeUrl(url)} unreachable: ${networkCause(err)}`, { cause: err });
}

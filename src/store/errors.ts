// Recognises the store's failures from either driver: constraint violations (services answer 409
// instead of 500) and unavailability (the store cannot answer now: HTTP 503 with Retry-After, a
// frame's `unavailable` ERROR), so a dependency's failure is never a 500 nor a crash.
import pg from 'pg';

export function isUniqueViolation(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY' || code === '23505';
}

/** A row names another that does not exist, or a delete would leave rows naming it (RESTRICT). */
export function isForeignKeyViolation(err: unknown): boolean {
  const { code, message } = (err ?? {}) as { code?: unknown; message?: unknown };
  if (code === 'SQLITE_CONSTRAINT_FOREIGNKEY' || code === '23503') return true;
  // SQLite reports an ON DELETE RESTRICT refusal under the trigger code, with the foreign key named.
  return code === 'SQLITE_CONSTRAINT_TRIGGER' && /FOREIGN KEY constraint failed/.test(String(message));
}

/** The store could not be reached or did not answer in time; what was asked of it did not happen (or was rolled back). */
export class StoreUnavailableError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'StoreUnavailableError';
  }
}

/**
 * SQLSTATEs that mean "not now" rather than "wrong": the connection failed (class 08), the server
 * ended the session or is starting or stopping (57P01–57P03), a statement ran past
 * statement_timeout (57014), the server ran out of connections or resources (class 53).
 */
const TRANSIENT_SQLSTATE = /^(08|53|57P0[1-3]$|57014$)/;

/** Whether `err` means the store is away or overloaded (answer 503 / `unavailable`), not that the request was wrong. */
export function isStoreUnavailable(err: unknown): boolean {
  if (err instanceof StoreUnavailableError) return true;
  if (err instanceof pg.DatabaseError) return TRANSIENT_SQLSTATE.test(err.code ?? '');
  const code = (err as { code?: unknown } | null)?.code;
  // SQLite: another connection held the write lock for longer than the busy timeout.
  return typeof code === 'string' && code.startsWith('SQLITE_BUSY');
}

/**
 * Whether a pg client that failed with `err` is still usable. Errors the server answered with a
 * SQLSTATE leave the session intact (it sent ReadyForQuery), but for the ones that end it; anything
 * else (a socket error, "Connection terminated", a client-side query timeout with the server
 * silent) leaves the connection in an unknown state: it must be destroyed, never reused.
 */
export function breaksConnection(err: unknown): boolean {
  if (err instanceof pg.DatabaseError) return /^(08|57P0[1-3]$)/.test(err.code ?? '');
  return true;
}

/** Whether `err` (from pg) says the connection failed, as opposed to a mistake in what was asked. */
export function isConnectionFailure(err: unknown): boolean {
  if (err instanceof pg.DatabaseError) return /^(08|57P0[1-3]$)/.test(err.code ?? '');
  const { code, message } = (err ?? {}) as { code?: unknown; message?: unknown };
  // Socket errors (ECONNRESET, EPIPE, ETIMEDOUT…) and pg's own: "Connection terminated unexpectedly",
  // "Query read timeout", "Client has encountered a connection error and is not queryable".
  return (typeof code === 'string' && /^E[A-Z]+$/.test(code)) || /terminated|timeout|not queryable|connection/i.test(String(message ?? ''));
}

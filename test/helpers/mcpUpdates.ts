// What one MCP client hears as notifications/resources/updated, with a wait on a condition over it
// that wakes on each notification (no polling, no sleeps).
import type { Client } from '@modelcontextprotocol/client';

export interface HeardUpdates {
  /** The URIs heard, in order. */
  readonly uris: string[];
  /** Resolves once `done()` holds, checking it now and after each notification; rejects after `timeoutMs`. */
  until(done: () => boolean | Promise<boolean>, what: string, timeoutMs?: number): Promise<void>;
}

export function hearUpdates(client: Client): HeardUpdates {
  const uris: string[] = [];
  const waiters = new Set<() => void>();
  client.setNotificationHandler('notifications/resources/updated', (n) => {
    uris.push(n.params.uri);
    for (const wake of waiters) wake();
  });
  return {
    uris,
    until(done, what, timeoutMs = 10_000) {
      return new Promise<void>((resolve, reject) => {
        let checking = false;
        let again = false;
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`no notification made this true in ${timeoutMs} ms: ${what} (heard ${JSON.stringify(uris)})`));
        }, timeoutMs);
        // One check at a time; a notification during a check runs it once more after.
        const check = () => {
          if (checking) {
            again = true;
            return;
          }
          checking = true;
          void Promise.resolve(done()).then(
            (ok) => {
              checking = false;
              if (ok) {
                clearTimeout(timer);
                waiters.delete(check);
                resolve();
              } else if (again) {
                again = false;
                check();
              }
            },
            (err: unknown) => {
              clearTimeout(timer);
              waiters.delete(check);
              reject(err instanceof Error ? err : new Error(String(err)));
            },
          );
        };
        waiters.add(check);
        check();
      });
    },
  };
}

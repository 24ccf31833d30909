// POST a body and stream the response back: the one exchange Butler's model client makes, on
// undici's connection pool. Its dispatch() hands the response's head and body pieces straight to
// these handlers: no request or response objects and no readable stream per response, which in
// node:http cost about a sixth of the hub's CPU at a thousand streamed answers.
import { Pool, type Dispatcher } from 'undici';

export interface PostHandlers {
  /** The response's status line and headers are in. */
  head(status: number): void;
  /** A piece of the body (de-chunked). */
  data(chunk: Buffer): void;
  /** The body is complete. */
  end(): void;
  /** The exchange failed; `answered`: a response head had come. */
  error(err: Error, answered: boolean): void;
}

export interface PostExchange {
  /** Drops the exchange; no handler is called after it. */
  abort(): void;
}

export interface Poster {
  /** Posts the body made of `parts`, in order. */
  post(parts: readonly Buffer[], handlers: PostHandlers): PostExchange;
  /** Closes the connections. */
  close(): void;
}

export interface PosterOptions {
  headers: Readonly<Record<string, string>>;
  /** Connections to the endpoint at most, kept alive between exchanges. */
  keepConnections: number;
}

/** A kept-alive connection the server closed just as it was reused: nothing came back. */
const STALE_CONNECTION = new Set(['UND_ERR_SOCKET', 'ECONNRESET', 'EPIPE']);

export function createPoster(url: URL, options: PosterOptions): Poster {
  const pool = new Pool(url.origin, { connections: options.keepConnections, pipelining: 1 });
  const path = `${url.pathname}${url.search}`;

  return {
    post(parts, handlers) {
      const body = parts.length === 1 ? parts[0]! : Buffer.concat(parts);
      let controller: Dispatcher.DispatchController | undefined;
      let over = false;
      let answered = false;
      let retried = false;
      let returned = false;

      const dispatch = () =>
        pool.dispatch(
          { origin: url.origin, path, method: 'POST', headers: options.headers, body },
          {
            onRequestStart(c) {
              controller = c;
              if (over) c.abort(new Error('aborted'));
            },
            onResponseStart(_c, status) {
              if (over || status < 200) return;
              answered = true;
              handlers.head(status);
            },
            onResponseData(_c, chunk) {
              if (!over) handlers.data(chunk);
            },
            onResponseEnd() {
              if (over) return;
              over = true;
              handlers.end();
            },
            onResponseError(_c, err) {
              if (over) return;
              // Sending again on a new connection replays nothing: the server never answered.
              const code = (err as { code?: string }).code;
              if (!answered && !retried && code !== undefined && STALE_CONNECTION.has(code)) {
                retried = true;
                return void dispatch();
              }
              over = true;
              // The handlers never run inside post() (the model client wires its abort after it returns).
              if (returned) handlers.error(err, answered);
              else queueMicrotask(() => handlers.error(err, answered));
            },
          },
        );
      dispatch();
      returned = true;
      return {
        abort() {
          if (over) return;
          over = true;
          controller?.abort(new Error('aborted'));
        },
      };
    },
    close() {
      void pool.destroy();
    },
  };
}

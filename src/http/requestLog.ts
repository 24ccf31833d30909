// One log line per request: method, path (credentials in the query redacted), status, ms, and the
// request id. Probes and scrapes (health, readiness, metrics) log at debug: they come every few
// seconds and say nothing new; so do the dashboard's files, a dozen for each page load. Each
// finished request is also handed to `observe` (the metrics).
import type { Logger } from 'pino';
import type { Handler, Request, Response } from './context.js';
import { requestLogger } from './requestId.js';

const SECRET_QUERY = /([?&](?:token|api_token|access_token|password)=)[^&]*/gi;

export function redactUrl(url: string): string {
  return url.replace(SECRET_QUERY, '$1[redacted]');
}

export interface RequestLogOptions {
  /** Paths logged at debug whatever their status. */
  quietPaths?: ReadonlySet<string>;
  observe?: (req: Request, res: Response, seconds: number) => void;
}

/** Logs this request's line at debug, whatever its path (a handler that answers routine traffic). */
export function logAtDebug(res: Response): void {
  (res.locals as { logAtDebug?: boolean }).logAtDebug = true;
}

export function requestLog(logger: Logger, options: RequestLogOptions = {}): Handler {
  const quiet = options.quietPaths ?? new Set<string>();
  return (req, res, next) => {
    const started = process.hrtime.bigint();
    res.on('finish', () => {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      options.observe?.(req, res, seconds);
      const log = requestLogger(res, logger);
      const status = res.statusCode;
      const line = { method: req.method, path: redactUrl(req.originalUrl ?? req.url), status, ms: Math.round(seconds * 1e4) / 10 };
      if (quiet.has(req.path) || (res.locals as { logAtDebug?: boolean }).logAtDebug) log.debug(line, 'request');
      // 501 is an answer, not a failure: what this hub does not offer.
      else if (status >= 500 && status !== 501) log.error(line, 'request failed');
      else log.info(line, 'request');
    });
    next();
  };
}

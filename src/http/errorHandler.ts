// The one place errors become HTTP answers: HubErrors keep their status and text; the store being
// away or overloaded is a 503 with Retry-After (the request may be sent again); anything else is a
// 500 whose detail goes to the log only (with the request id, which the client also got).
import type { Logger } from 'pino';
import { Errors, HubError, INTERNAL_ERROR_BODY } from '../errors.js';
import { isStoreUnavailable } from '../store/errors.js';
import type { NextFunction, Request, Response } from './context.js';
import { requestLogger } from './requestId.js';

export function createErrorHandler(logger: Logger) {
  return (err: unknown, req: Request, res: Response, _next: NextFunction): void => {
    const log = requestLogger(res, logger);
    if (res.headersSent) {
      log.error({ err, method: req.method, path: req.path }, 'error after the response was sent');
      return;
    }
    if (!(err instanceof HubError) && isStoreUnavailable(err)) {
      log.warn({ err: (err as Error).message, method: req.method, path: req.path }, 'the store is unavailable: answered 503');
      err = Errors.storeUnavailable();
    }
    if (err instanceof HubError) {
      if (err.retryAfterSeconds !== undefined) res.setHeader('Retry-After', String(err.retryAfterSeconds));
      res.status(err.status).json({ error: err.message });
      return;
    }
    log.error({ err, method: req.method, path: req.path }, 'unhandled error in request');
    res.status(500).json(INTERNAL_ERROR_BODY);
  };
}

// One log line per request: method, path (credentials in the query redacted), status, ms.
import type { Logger } from 'pino';
import type { Handler } from './context.js';

const SECRET_QUERY = /([?&](?:token|api_token|access_token|password)=)[^&]*/gi;

export function redactUrl(url: string): string {
  return url.replace(SECRET_QUERY, '$1[redacted]');
}

export function requestLog(logger: Logger): Handler {
  return (req, res, next) => {
    const started = process.hrtime.bigint();
    res.on('finish', () => {
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      const status = res.statusCode;
      const line = { method: req.method, path: redactUrl(req.originalUrl ?? req.url), status, ms: Math.round(ms * 10) / 10 };
      if (status >= 500) logger.error(line, 'request failed');
      else logger.info(line, 'request');
    });
    next();
  };
}

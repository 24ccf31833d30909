// Request ids: an incoming X-Request-Id is kept when it is a sane token (so a proxy's id follows the
// request through), otherwise the hub makes one. It goes back in the response header and on every
// log line of the request, through a child logger kept with the request.
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import { z } from 'zod';
import type { Handler, Response } from './context.js';

export const REQUEST_ID_HEADER = 'X-Request-Id';

/** What a client or proxy may send: printable, no spaces, short enough to log. */
export const requestIdHeader = z.string().regex(/^[A-Za-z0-9._:/+=@-]{1,128}$/);

interface RequestLocals {
  requestId?: string;
  log?: Logger;
}

export function requestIds(logger: Logger): Handler {
  return (req, res, next) => {
    const given = requestIdHeader.safeParse(req.headers['x-request-id']);
    const id = given.success ? given.data : randomUUID();
    const locals = res.locals as RequestLocals;
    locals.requestId = id;
    locals.log = logger.child({ req_id: id });
    res.setHeader(REQUEST_ID_HEADER, id);
    next();
  };
}

/** The request's logger (carrying its id); the hub's logger before the id middleware ran. */
export function requestLogger(res: Response, fallback: Logger): Logger {
  return (res.locals as RequestLocals).log ?? fallback;
}

// Typed access to what middleware established for a request (kept in `res.locals`, the Express
// idiom, rather than fields hung on the request object).
import type express from 'ultimate-express';
import { Errors } from '../errors.js';
import type { UserRow } from '../store/schema.js';

export type Request = express.Request;
export type Response = express.Response;
export type NextFunction = express.NextFunction;
export type Handler = (req: Request, res: Response, next: NextFunction) => void;

export function callerOf(res: Response): UserRow {
  const user = (res.locals as { user?: UserRow }).user;
  if (!user) throw Errors.invalidToken(); // a route declared protected without its auth middleware
  return user;
}

export function setCaller(res: Response, user: UserRow): void {
  (res.locals as { user?: UserRow }).user = user;
}

/** Wraps an async handler so a rejection reaches the error handler exactly once. */
export function route(handler: (req: Request, res: Response) => Promise<void> | void): Handler {
  return (req, res, next) => {
    try {
      const out = handler(req, res);
      if (out instanceof Promise) out.catch(next);
    } catch (err) {
      next(err);
    }
  };
}

/** What a route module needs from the app: the verb methods only. */
export type Routes = Pick<express.Application, 'get' | 'post' | 'patch' | 'put' | 'delete'>;

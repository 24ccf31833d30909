// The Express types the HTTP edge is written against.
import type express from 'ultimate-express';

export type Request = express.Request;
export type Response = express.Response;
export type NextFunction = express.NextFunction;
export type Handler = (req: Request, res: Response, next: NextFunction) => void;

/** What route registration needs from the app: the verb methods only. */
export type Routes = Pick<express.Application, 'get' | 'post' | 'patch' | 'put' | 'delete'>;

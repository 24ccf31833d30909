// JSON request bodies with a size limit. Written here rather than taken from the framework because
// its parser answers oversized and malformed bodies with 500 and may call `next` more than once.
import { Errors } from '../errors.js';
import type { Handler } from './context.js';

const METHODS_WITH_BODY = new Set(['POST', 'PUT', 'PATCH']);

export function jsonBody(limitBytes: number): Handler {
  return (req, res, next) => {
    req.body = undefined;
    if (!METHODS_WITH_BODY.has(req.method)) return next();
    const declared = Number(req.headers['content-length']);
    if (declared > limitBytes) {
      res.setHeader('Connection', 'close');
      return next(Errors.bodyTooLarge(limitBytes));
    }
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    const settle = (err?: unknown) => {
      if (settled) return;
      settled = true;
      next(err);
    };
    req.on('data', (chunk: Buffer) => {
      if (settled) return;
      size += chunk.length;
      if (size > limitBytes) {
        res.setHeader('Connection', 'close');
        settle(Errors.bodyTooLarge(limitBytes));
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => {
      if (settled) return;
      const text = Buffer.concat(chunks).toString('utf8');
      if (text.trim() !== '') {
        try {
          req.body = JSON.parse(text);
        } catch {
          return settle(Errors.invalidBody());
        }
      }
      settle();
    });
    req.on('error', (err: Error) => settle(err));
  };
}

// Counts requests in flight so shutdown can let them finish before the store closes, and turns new
// requests away (503) once shutdown has begun: keep-alive connections outlive the listen socket.
import { EventEmitter } from 'node:events';
import { Errors } from '../errors.js';
import type { Handler } from './context.js';

export function createRequestGate() {
  let inFlight = 0;
  let closing = false;
  const events = new EventEmitter();

  const middleware: Handler = (_req, res, next) => {
    if (closing) {
      res.setHeader('Connection', 'close');
      return next(Errors.unavailable('the hub is shutting down'));
    }
    inFlight++;
    let left = false;
    // A client that hangs up before the answer: ultimate-express then marks the response finished
    // and closes only its socket, so neither 'finish' nor 'close' ever fires on the response.
    const socket = res.socket;
    const leave = () => {
      if (left) return;
      left = true;
      socket?.off('close', leave);
      inFlight--;
      if (inFlight === 0) events.emit('idle');
    };
    res.on('finish', leave);
    res.on('close', leave);
    socket?.once('close', leave);
    next();
  };

  return {
    middleware,
    get inFlight() {
      return inFlight;
    },
    /** Refuses new requests from now on and resolves when those in flight are done (or after `timeoutMs`). */
    close(timeoutMs: number): Promise<boolean> {
      closing = true;
      if (inFlight === 0) return Promise.resolve(true);
      return new Promise((resolve) => {
        const timer = setTimeout(() => {
          events.off('idle', onIdle);
          resolve(false);
        }, timeoutMs);
        const onIdle = () => {
          clearTimeout(timer);
          resolve(true);
        };
        events.once('idle', onIdle);
      });
    },
  };
}
export type RequestGate = ReturnType<typeof createRequestGate>;

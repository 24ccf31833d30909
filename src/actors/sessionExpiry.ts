// Session expiry for connection actors: a JWT's lifetime, timed outside XState's scheduler (see eventTimers.ts).
import type { Timers } from '../clock.js';
import { EventTimers, type TimerPort } from './eventTimers.js';

export const SESSION_EXPIRED = { type: 'SESSION_EXPIRED' } as const;

export type ExpiryPort = TimerPort<typeof SESSION_EXPIRED>;

export class SessionTimers extends EventTimers<typeof SESSION_EXPIRED> {
  constructor(timers?: Timers) {
    super(SESSION_EXPIRED, timers);
  }
}

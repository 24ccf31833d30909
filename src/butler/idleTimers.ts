// Idle timers for Butler's conversation actors, which share the router's actor system: kept outside
// XState's scheduler, which every answer's ending actor scanned (see actors/eventTimers.ts).
import type { Timers } from '../clock.js';
import { EventTimers, type TimerPort } from '../actors/eventTimers.js';

export const IDLE_EXPIRED = { type: 'IDLE' } as const;

export type IdlePort = TimerPort<typeof IDLE_EXPIRED>;

export class IdleTimers extends EventTimers<typeof IDLE_EXPIRED> {
  constructor(timers?: Timers) {
    super(IDLE_EXPIRED, timers);
  }
}

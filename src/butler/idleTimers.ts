// Idle timers for Butler's conversation actors, which share the router's actor system: kept outside
// XState's scheduler, which every answer's ending actor scanned (see actors/eventTimers.ts).
import { EventTimers, type TimerPort } from '../actors/eventTimers.js';

export const IDLE_EXPIRED = { type: 'IDLE' } as const;

export type IdlePort = TimerPort<typeof IDLE_EXPIRED>;

export class IdleTimers extends EventTimers<typeof IDLE_EXPIRED> {
  constructor() {
    super(IDLE_EXPIRED);
  }
}

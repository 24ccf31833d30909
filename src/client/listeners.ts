// The client's typed events: a frame type, every frame, status changes and warnings. A listener's
// failure becomes a warning; it is never thrown into the socket's callback or the other listeners.
import type { FrameOf, ServerFrame, ServerFrameType } from '../protocol/serverFrames.js';
import { errorText } from './clientErrors.js';
import type { ConnectionState } from './connectionMachine.js';

/** What the client reports about its connection: the state and one readable line. */
export interface StatusEvent {
  state: ConnectionState;
  message: string;
  /** Failed attempts since the last healthy connection. */
  attempt: number;
}

/** A stream whose end this client may never receive: the connection dropped while it was open (incomingStreams.ts). */
export interface InterruptedStream {
  stream_id: string;
  sender_id: number;
  conversation_id?: number;
}

export type ClientEvents = { [K in ServerFrameType]: FrameOf<K> } & {
  /** Every valid frame, whatever its type. */
  frame: ServerFrame;
  status: StatusEvent;
  /** Something the client ignored or could not do, in one readable line (unknown frames, failed handlers). */
  warning: string;
  /** A stream this client was receiving when its connection dropped: its chunks and end may never come. */
  streamInterrupted: InterruptedStream;
};

export class Listeners {
  private readonly handlers = new Map<keyof ClientEvents, Set<(event: never) => void>>();

  on<K extends keyof ClientEvents>(type: K, handler: (event: ClientEvents[K]) => unknown): () => void {
    const safe = (event: ClientEvents[K]) => this.guard(`a ${String(type)} handler`, () => handler(event));
    let set = this.handlers.get(type);
    if (!set) this.handlers.set(type, (set = new Set()));
    set.add(safe);
    return () => set.delete(safe);
  }

  emit<K extends keyof ClientEvents>(type: K, event: ClientEvents[K]): void {
    const set = this.handlers.get(type) as Set<(event: ClientEvents[K]) => void> | undefined;
    if (set) for (const handler of [...set]) handler(event);
  }

  warn(text: string): void {
    this.emit('warning', text);
  }

  /** Runs an application's callback; its failure, thrown or rejected, becomes a warning naming `what`. */
  guard(what: string, run: () => unknown): void {
    try {
      const result = run();
      if (result instanceof Promise) result.catch((err: unknown) => this.reportFailure(what, err));
    } catch (err) {
      this.reportFailure(what, err);
    }
  }

  private reportFailure(what: string, err: unknown): void {
    // A failing warning handler must not recurse.
    if (what.includes('warning')) return;
    this.warn(`${what} failed: ${errorText(err)}`);
  }
}

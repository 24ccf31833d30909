// The opt-in transition trace: an inspector on the hub's actor system (HubOptions.inspect) that
// records, in order, each event an actor received and each change of its state. Names are the
// inspection ids (`butler`, `connection-3`, `conversation-5-0`) where the kit can tell them.
import type { ActorRefLike, InspectionEvent } from 'xstate';
import { stateOf } from '../ops/inspection.js';
import { truncate } from './match.js';

export interface TraceEntry {
  /** Position in the whole trace, from 0. */
  seq: number;
  /** Milliseconds since the hub started, on the hub's clock. */
  at: number;
  actor: string;
  kind: 'started' | 'event' | 'transition' | 'stopped';
  /** The event's type (what was received, or what caused the transition). */
  event?: string;
  /** Who sent the event, when it came from another actor. */
  from?: string;
  /** For transitions: the state before and after. */
  before?: string;
  state?: string;
}

interface Recorded extends Omit<TraceEntry, 'actor' | 'from'> {
  ref: ActorRefLike;
  actor: string;
  source?: ActorRefLike;
  from?: string;
}

/** XState's own id for an actor the kit cannot name (`x:4`). */
const idOf = (ref: ActorRefLike) => String((ref as { id?: unknown }).id ?? '?');

/** At most this many entries are kept; older ones are dropped (and counted). */
const MAX_ENTRIES = 10_000;

export interface Tracer {
  inspect(event: InspectionEvent): void;
  entries(filter?: { actor?: string | RegExp }): TraceEntry[];
  /** The last `last` entries (all by default) as lines. */
  format(entries: readonly TraceEntry[]): string;
  readonly dropped: number;
}

export function createTracer(options: { now: () => number; nameOf: (ref: ActorRefLike) => string | undefined }): Tracer {
  const started = options.now();
  const recorded: Recorded[] = [];
  const states = new WeakMap<ActorRefLike, string>();
  let seq = 0;
  let dropped = 0;
  const fallback = (ref: ActorRefLike) => options.nameOf(ref) ?? idOf(ref);

  const push = (entry: Omit<Recorded, 'seq' | 'at'>) => {
    recorded.push({ ...entry, seq: seq++, at: options.now() - started });
    if (recorded.length > MAX_ENTRIES) {
      recorded.shift();
      dropped++;
    }
  };

  return {
    get dropped() {
      return dropped;
    },
    inspect(ev) {
      const ref = ev.actorRef;
      if (ev.type === '@xstate.actor') {
        push({ ref, actor: fallback(ref), kind: 'started' });
      } else if (ev.type === '@xstate.event') {
        // Sent by an actor of the system, or from outside (sourceRef undefined).
        push({ ref, actor: fallback(ref), kind: 'event', event: ev.event.type, source: ev.sourceRef, from: ev.sourceRef && fallback(ev.sourceRef) });
      } else if (ev.type === '@xstate.snapshot') {
        const snapshot = ev.snapshot as { value?: unknown; status?: string };
        const state = snapshot.value === undefined ? undefined : stateOf(snapshot.value);
        const before = states.get(ref);
        if (state !== undefined && state !== before) {
          states.set(ref, state);
          push({ ref, actor: fallback(ref), kind: 'transition', event: ev.event.type, before, state });
        }
        if (snapshot.status === 'done' || snapshot.status === 'stopped' || snapshot.status === 'error') {
          push({ ref, actor: fallback(ref), kind: 'stopped', event: ev.event.type, state: snapshot.status });
        }
      }
    },
    entries(filter = {}) {
      const out: TraceEntry[] = [];
      for (const r of recorded) {
        // A name the kit could not tell when recorded (a connection not yet in the table) may be known now.
        if (r.actor === idOf(r.ref)) r.actor = fallback(r.ref);
        if (r.source && r.from === idOf(r.source)) r.from = fallback(r.source);
        const { actor } = filter;
        if (actor !== undefined && !(typeof actor === 'string' ? r.actor === actor : actor.test(r.actor))) continue;
        const { ref: _ref, source: _source, ...entry } = r;
        out.push(entry);
      }
      return out;
    },
    format(entries) {
      return entries
        .map((e) => {
          const head = `  +${String(e.at).padStart(5)}ms ${e.actor}`;
          if (e.kind === 'transition') return `${head}: ${e.before ?? '(start)'} → ${e.state} on ${e.event}`;
          if (e.kind === 'event') return `${head}: received ${e.event}${e.from ? ` from ${e.from}` : ''}`;
          if (e.kind === 'stopped') return `${head}: ${e.state} (${e.event})`;
          return `${head}: started`;
        })
        .map((line) => truncate(line, 300))
        .join('\n');
    },
  };
}

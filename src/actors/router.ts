// The router actor (systemId 'router'): root of the actor system the connection actors join. It
// owns the address table and applies the routing rules to
// every batch the pipeline has committed. One DELIVER event carries a whole batch, so the hot path
// pays one actor event per group commit, not per message or per recipient; each frame was
// serialised once and the same string goes to every socket, the frame object beside it to every
// endpoint inside the hub (which never parses it back).
import { assertEvent, assign, setup, type Actor } from 'xstate';
import { AddressTable } from '../delivery/addressTable.js';
import type { Delivery, DeliveryMeter, Endpoint, PresencePort } from '../delivery/types.js';
import { CloseCode } from '../protocol/errors.js';
import type { MessageFrame } from '../protocol/frames.js';

export type RouterEvent =
  | { type: 'BIND'; endpoint: Endpoint }
  | { type: 'UNBIND'; endpoint: Endpoint }
  | { type: 'DELIVER'; deliveries: readonly Delivery[] }
  | { type: 'CLOSE_USER'; userId: number; code: number; reason: string }
  | { type: 'CLOSE_ALL'; code: number; reason: string }
  | { type: 'SHUTDOWN' };

interface Revocation {
  at: number;
  code: number;
  reason: string;
}

export interface RouterContext {
  /**
   * Mutated in place by bind, unbind and deliver on purpose: copying a table of tens of thousands
   * of endpoints (or a counter object) on every event would cost more than the routing itself.
   */
  table: AddressTable;
  presence: PresencePort;
  delivered: number;
  now: () => number;
  /**
   * Recent CLOSE_USER orders. A socket whose credential was checked before one of them but which
   * binds only after it (the upgrade was in flight) is closed on arrival instead of slipping through.
   */
  revoked: ReadonlyMap<number, Revocation>;
  /** Counts frames handed to sockets, once per delivery (not per recipient). */
  meter: DeliveryMeter;
}

/** How long a revocation is remembered: far longer than any upgrade takes. */
const REVOCATION_MEMORY_MS = 60_000;

/**
 * Only agents' sockets make presence: humans come and go with their tabs, Butler lives in the hub, and
 * an endpoint inside the hub that hears answers for an agent (its A2A tasks) is not the agent online.
 */
const tracksPresence = (endpoint: Endpoint) => endpoint.user.role === 'AGENT' && !endpoint.inHub;

const NO_METER: DeliveryMeter = { sent: () => undefined };

/** The frame object of a serialised message frame (a frame from another node carries only its text). */
function parseFrame(text: string): MessageFrame | undefined {
  try {
    return JSON.parse(text) as MessageFrame;
  } catch {
    return undefined;
  }
}

/** Hands `d` to each of `endpoints` (but `except`'s); returns how many took it. */
function sendTo(endpoints: Iterable<Endpoint> | undefined, d: Delivery, except?: number): number {
  if (endpoints === undefined) return 0;
  let sent = 0;
  for (const e of endpoints) {
    if ((d.socketsOnly && e.inHub) || e.user.id === except) continue;
    if (d.type === 'PRESENCE' && e.deliverPresence) {
      e.deliverPresence(d.senderId, d.text);
      sent++;
      continue;
    }
    // A frame from another node arrives as text only; an endpoint inside the hub reads the object (parsed once).
    if (e.inHub && d.frame === undefined && d.type !== 'PRESENCE') d.frame = parseFrame(d.text);
    e.deliver(d.text, d.id, d.frame);
    sent++;
  }
  return sent;
}

// Loops rather than a closure per delivery: this runs for every frame the hub delivers.
function deliverOne(table: AddressTable, d: Delivery, meter: DeliveryMeter): number {
  const a = d.audience;
  let sent = 0;
  if (a.target !== undefined) {
    sent += sendTo(table.of(a.target), d);
    if (a.echo && a.target !== d.senderId) sent += sendTo(table.of(d.senderId), d);
  } else if (a.broadcast === 'everyone') {
    sent += sendTo(table.all, d, a.exceptSender ? d.senderId : undefined);
  } else if (a.broadcast === 'humans') {
    sent += sendTo(table.humans, d);
  }
  meter.sent(d.type, sent, d.text);
  if (a.monitor && d.monitorText !== undefined) {
    for (const e of table.admins) e.deliver(d.monitorText, d.id);
    meter.sent('BUTLER_AGENT_MESSAGE', table.admins.size, d.monitorText);
    sent += table.admins.size;
  }
  return sent;
}

export const routerMachine = setup({
  types: {
    context: {} as RouterContext,
    events: {} as RouterEvent,
    input: {} as { presence: PresencePort; now?: () => number; meter?: DeliveryMeter },
  },
  actions: {
    bind: ({ context, event }) => {
      assertEvent(event, 'BIND');
      const { endpoint } = event;
      const revocation = context.revoked.get(endpoint.user.id);
      if (revocation && endpoint.authenticatedAt !== undefined && endpoint.authenticatedAt <= revocation.at) {
        endpoint.close(revocation.code, revocation.reason);
        return;
      }
      if (context.table.bind(endpoint) && tracksPresence(endpoint)) context.presence.online(endpoint.user, endpoint.key);
    },
    unbind: ({ context, event }) => {
      assertEvent(event, 'UNBIND');
      if (context.table.unbind(event.endpoint) && tracksPresence(event.endpoint)) context.presence.offline(event.endpoint.user);
    },
    refuseBind: ({ event }) => {
      assertEvent(event, 'BIND');
      event.endpoint.close(CloseCode.goingAway, 'the hub is shutting down');
    },
    deliver: ({ context, event }) => {
      assertEvent(event, 'DELIVER');
      for (const d of event.deliveries) context.delivered += deliverOne(context.table, d, context.meter);
    },
    remember: assign({
      revoked: ({ context, event }) => {
        assertEvent(event, 'CLOSE_USER');
        const now = context.now();
        const kept = new Map([...context.revoked].filter(([, r]) => now - r.at <= REVOCATION_MEMORY_MS));
        return kept.set(event.userId, { at: now, code: event.code, reason: event.reason });
      },
    }),
    closeUser: ({ context, event }) => {
      assertEvent(event, 'CLOSE_USER');
      for (const e of [...(context.table.of(event.userId) ?? [])]) e.close(event.code, event.reason);
    },
    closeAll: ({ context, event }) => {
      assertEvent(event, ['CLOSE_ALL', 'SHUTDOWN']);
      const code = event.type === 'CLOSE_ALL' ? event.code : CloseCode.goingAway;
      const reason = event.type === 'CLOSE_ALL' ? event.reason : 'the hub is shutting down';
      for (const e of [...context.table.all]) e.close(code, reason);
    },
  },
}).createMachine({
  id: 'router',
  context: ({ input }) => ({
    table: new AddressTable(),
    presence: input.presence,
    delivered: 0,
    now: input.now ?? Date.now,
    revoked: new Map(),
    meter: input.meter ?? NO_METER,
  }),
  initial: 'running',
  states: {
    running: {
      on: {
        BIND: { actions: 'bind' },
        UNBIND: { actions: 'unbind' },
        DELIVER: { actions: 'deliver' },
        CLOSE_USER: { actions: ['remember', 'closeUser'] },
        CLOSE_ALL: { actions: 'closeAll' },
        SHUTDOWN: { target: 'stopping', actions: 'closeAll' },
      },
    },
    // Shutting down: no new endpoints; deliveries still reach sockets that have not closed yet.
    stopping: {
      on: {
        BIND: { actions: 'refuseBind' },
        UNBIND: { actions: 'unbind' },
        DELIVER: { actions: 'deliver' },
      },
    },
  },
});

/** The router actor (systemId 'router'), as the hub creates it. */
export type RouterActor = Actor<typeof routerMachine>;

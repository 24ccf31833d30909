// The bus port: what one node tells the other nodes. Each message kind is declared by the part that
// owns it (`defineBusMessage` next to the code that publishes and subscribes), with a zod schema for
// its body, so adding a message touches that part and nothing else. The bus reaches the OTHER nodes
// only: a node never hears its own messages. A single node is alone on an in-process bus, so what it
// publishes goes nowhere; cluster mode's Redis bus (src/cluster/bus/) carries the same messages.
// Redis says a message once, to the nodes listening then. A message that must reach every node (a
// revocation, a decision the leader acts on) is declared `durable`: cluster mode also keeps it in the
// store, and a node that was cut off from Redis hears it from there within a second; it carries its
// journal id, so a node that hears it both ways runs it once.
import type { z } from 'zod';

/** A message body: a plain object (it travels beside the envelope's `kind` and `node`). */
export type BusBody = Record<string, unknown>;

export interface BusMessage<T extends BusBody> {
  readonly kind: string;
  readonly schema: z.ZodType<T>;
  /** Every node must hear it, also one cut off from the bus when it was said (kept in the store). */
  readonly durable: boolean;
}

export interface BusMessageOptions {
  /** Every node must hear it, also one cut off from the bus when it was said (default false). */
  durable?: boolean;
}

/** Declares one kind of bus message; `kind` is its name on the wire, unique across the hub. */
export function defineBusMessage<T extends BusBody>(kind: string, schema: z.ZodType<T>, options: BusMessageOptions = {}): BusMessage<T> {
  if (kind === 'batch') throw new Error('"batch" is the committed batches\' kind on the bus');
  return { kind, schema, durable: options.durable ?? false };
}

export interface Bus {
  /** Tells the other nodes; never throws (a message the transport could not send is counted there). */
  publish<T extends BusBody>(message: BusMessage<T>, body: T): void;
  /** Runs `handler` for each message of this kind another node publishes; returns the unsubscribe. */
  subscribe<T extends BusBody>(message: BusMessage<T>, handler: (body: T) => void): () => void;
}

/** What a transport hands a received message to. */
export type Received = 'handled' | 'unknown kind' | 'invalid body';

/**
 * One node's subscriptions by kind. A transport decodes the envelope and calls `receive`; the body
 * is checked against the declaring part's schema before any handler sees it.
 */
export function createBusInbox() {
  const byKind = new Map<string, { schema: z.ZodType<BusBody>; handlers: Set<(body: BusBody) => void> }>();
  return {
    subscribe<T extends BusBody>(message: BusMessage<T>, handler: (body: T) => void): () => void {
      let entry = byKind.get(message.kind);
      if (!entry) byKind.set(message.kind, (entry = { schema: message.schema as unknown as z.ZodType<BusBody>, handlers: new Set() }));
      const h = handler as (body: BusBody) => void;
      entry.handlers.add(h);
      return () => void entry.handlers.delete(h);
    },
    receive(kind: string, body: unknown): Received {
      const entry = byKind.get(kind);
      if (!entry) return 'unknown kind';
      const parsed = entry.schema.safeParse(body);
      if (!parsed.success) return 'invalid body';
      for (const handler of [...entry.handlers]) handler(parsed.data);
      return 'handled';
    },
  };
}
export type BusInbox = ReturnType<typeof createBusInbox>;

/**
 * An in-process medium: each `node()` is one node's bus, and what one publishes reaches the others
 * (as JSON, so a body that would not survive the wire fails here too). A single node takes one bus
 * and is alone on it; tests take several.
 */
export function createLoopbackBus() {
  const nodes = new Set<BusInbox>();
  return {
    node(): Bus {
      const inbox = createBusInbox();
      nodes.add(inbox);
      return {
        publish(message, body) {
          const text = JSON.stringify(body);
          for (const other of nodes) if (other !== inbox) other.receive(message.kind, JSON.parse(text));
        },
        subscribe: inbox.subscribe,
      };
    },
  };
}

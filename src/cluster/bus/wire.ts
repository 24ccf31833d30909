// The committed batches on Redis, and their encoding (the other messages are the bus port's, see
// redisBus.ts). A committed batch goes to every node in
// one message (each node keeps what its own sockets need): every node must learn of every batch
// anyway to keep the visibility order, and a map of which node holds whom is one bus hop stale, so
// a socket that just opened elsewhere would miss frames. The frames travel as the exact strings the
// committing node serialised; no node builds or serialises them again.
import { z } from 'zod';
import type { Audience, Delivery } from '../../delivery/types.js';

const audience = z.object({
  target: z.number().int().optional(),
  echo: z.boolean(),
  broadcast: z.enum(['everyone', 'humans']).optional(),
  exceptSender: z.boolean(),
  monitor: z.boolean(),
});

const delivery = z.object({
  type: z.string(),
  text: z.string(),
  audience,
  senderId: z.number().int(),
  id: z.number().int().optional(),
  monitorText: z.string().optional(),
  socketsOnly: z.boolean().optional(),
});

/** One committed batch (or a batch of relays, `prev` = `last`). */
export const batchMessage = z.object({
  kind: z.literal('batch'),
  node: z.string(),
  prev: z.number().int(),
  last: z.number().int(),
  /** When it committed (epoch ms on the committing node): the bus lag. */
  at: z.number(),
  deliveries: z.array(delivery),
});
export type BatchMessage = z.infer<typeof batchMessage>;

export function encodeBatch(node: string, prev: number, last: number, deliveries: readonly Delivery[]): string {
  const message: BatchMessage = {
    kind: 'batch',
    node,
    prev,
    last,
    at: Date.now(),
    // The frame object stays home: the text is the frame.
    deliveries: deliveries.map((d) => {
      const out: BatchMessage['deliveries'][number] = { type: d.type, text: d.text, audience: d.audience as Audience, senderId: d.senderId };
      if (d.id !== undefined) out.id = d.id;
      if (d.monitorText !== undefined) out.monitorText = d.monitorText;
      if (d.socketsOnly) out.socketsOnly = true;
      return out;
    }),
  };
  return JSON.stringify(message);
}

/**
 * A batch from another node. Only its envelope is checked field by field; the frames inside are
 * the committing node's own serialisation and go to sockets as they are.
 */
export function decodeBatch(text: string): BatchMessage | undefined {
  try {
    const parsed = JSON.parse(text) as BatchMessage;
    if (parsed?.kind !== 'batch' || typeof parsed.prev !== 'number' || typeof parsed.last !== 'number' || !Array.isArray(parsed.deliveries)) return undefined;
    return parsed;
  } catch {
    return undefined;
  }
}

// What sending every batch to every node costs against a user→nodes map, measured on the bus's own
// code (src/cluster/bus/wire.ts) with real batches: each node of a 3-node cluster receives a batch of
// targeted CHAT frames of which it holds the recipients of a third.
//   broadcast: one encode per batch, one publish; every node decodes the whole batch.
//   map:       one encode per node (its own frames, plus the batch's place in the order, which every
//              node needs anyway), one publish per node; each node decodes only its third.
// Prints CPU µs per message for the committing node, for each receiving node, and for the cluster,
// and bytes on the bus per message.
//   npx tsx bench/busRouting.ts [--batch 500] [--nodes 3] [--rounds 400]
import { parseArgs } from 'node:util';
import { decodeBatch, encodeBatch } from '../src/cluster/bus/wire.js';
import type { Delivery } from '../src/delivery/types.js';

const { values } = parseArgs({
  options: { batch: { type: 'string', default: '500' }, nodes: { type: 'string', default: '3' }, rounds: { type: 'string', default: '400' } },
});
const batchSize = Number(values.batch);
const nodes = Number(values.nodes);
const rounds = Number(values.rounds);

function makeBatch(size: number, firstId: number): Delivery[] {
  return Array.from({ length: size }, (_, i) => {
    const id = firstId + i;
    const frame = {
      type: 'CHAT',
      id,
      sender_id: 1000 + (i % 100),
      sender_name: `agent-${i % 100}`,
      sender_role: 'AGENT',
      target_id: 2000 + (i % 60),
      payload: 'x'.repeat(100),
      local_id: `l-${id}`,
      conversation_id: 5000 + (i % 60),
      timestamp: new Date(1_790_000_000_000 + id).toISOString(),
    };
    return {
      type: 'CHAT',
      text: JSON.stringify(frame),
      audience: { target: frame.target_id, echo: false, exceptSender: false, monitor: false },
      senderId: frame.sender_id,
      id,
    };
  });
}

/** CPU µs spent in `fn` per call, over `n` calls (after a warm-up). */
function timeUs(n: number, fn: (i: number) => void): number {
  for (let i = 0; i < Math.min(50, n); i++) fn(i);
  const start = process.cpuUsage();
  for (let i = 0; i < n; i++) fn(i);
  const used = process.cpuUsage(start);
  return (used.user + used.system) / n;
}

const batches = Array.from({ length: rounds }, (_, r) => makeBatch(batchSize, r * batchSize + 1));
// Recipients spread evenly: node k holds the targets with (target % nodes) === k.
const share = (d: Delivery, k: number) => (d.audience.target ?? 0) % nodes === k;

let bytesBroadcast = 0;
const encodeBroadcast = timeUs(rounds, (r) => {
  const b = batches[r]!;
  bytesBroadcast += encodeBatch('n1', b[0]!.id! - 1, b.at(-1)!.id!, b).length;
});
const broadcastTexts = batches.map((b) => encodeBatch('n1', b[0]!.id! - 1, b.at(-1)!.id!, b));
const decodeWhole = timeUs(rounds, (r) => void decodeBatch(broadcastTexts[r]!));

let bytesMap = 0;
// Node 0 commits: the others get their shares, one channel each.
const encodeMap = timeUs(rounds, (r) => {
  const b = batches[r]!;
  for (let k = 1; k < nodes; k++)
    bytesMap += encodeBatch(
      'n1',
      b[0]!.id! - 1,
      b.at(-1)!.id!,
      b.filter((d) => share(d, k)),
    ).length;
});
const thirdTexts = batches.map((b) =>
  encodeBatch(
    'n1',
    b[0]!.id! - 1,
    b.at(-1)!.id!,
    b.filter((d) => share(d, 1)),
  ),
);
const decodeThird = timeUs(rounds, (r) => void decodeBatch(thirdTexts[r]!));

const perMessage = (us: number) => (us / batchSize).toFixed(2);
const receivers = nodes - 1;
// Redis hands a broadcast to every subscriber (the committing node too, which drops its own).
const bytes = (total: number, copies: number) => ((total * copies) / rounds / batchSize).toFixed(0);
const rows = [
  [
    'broadcast (chosen)',
    perMessage(encodeBroadcast),
    perMessage(decodeWhole),
    perMessage(encodeBroadcast + receivers * decodeWhole),
    bytes(bytesBroadcast, nodes),
  ],
  ['user→nodes map', perMessage(encodeMap), perMessage(decodeThird), perMessage(encodeMap + receivers * decodeThird), bytes(bytesMap, 1)],
];
process.stdout.write(
  `Bus routing, ${nodes} nodes, batches of ${batchSize} targeted CHAT frames (100-byte text), ${rounds} batches, CPU µs per message:\n\n` +
    '| scheme | committing node encodes | each other node decodes | whole cluster | bytes Redis delivers per message |\n|---|---:|---:|---:|---:|\n' +
    rows.map((r) => `| ${r.join(' | ')} |`).join('\n') +
    '\n',
);

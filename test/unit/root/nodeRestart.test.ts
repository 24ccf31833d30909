// The composition root's own bus message: after a development reset on one node, every node's
// order of committed batches and pipeline start over, on the loopback bus of a single process and
// on cluster mode's Redis bus, with the same code.
import { afterEach, describe, expect, it } from 'vitest';
import type { Bus } from '../../../src/delivery/bus.js';
import { followRestarts, idsRestartedMessage, restartedIds } from '../../../src/root/node.js';
import { busNodes, nextOn, type BusNodes, type Transport } from '../../helpers/buses.js';

describe.each<Transport>(['loopback', 'redis'])('restarted ids on the %s bus', (transport) => {
  let nodes: BusNodes | undefined;
  afterEach(async () => {
    await nodes?.close();
    nodes = undefined;
  });

  it('restart the order here and, on the other node, the order and the pipeline', async () => {
    nodes = await busNodes(transport, 2);
    const [busA, busB] = nodes.buses as [Bus, Bus];
    const events: string[] = [];
    const a = { bus: busA, restartOrder: () => void events.push('a: order') };
    const b = { bus: busB, restartOrder: () => void events.push('b: order') };
    followRestarts(a, { reset: () => void events.push('a: pipeline') });
    followRestarts(b, { reset: () => void events.push('b: pipeline') });
    const heard = nextOn(busB, idsRestartedMessage);

    restartedIds(a);

    await heard;
    expect(events).toEqual(['a: order', 'b: order', 'b: pipeline']);
  });
});

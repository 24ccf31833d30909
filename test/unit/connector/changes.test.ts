// The connector's own bus message: a change made through a node that does not lead makes the
// leader reload the connector, on the loopback bus of a single process and on cluster mode's Redis
// bus, with the same code.
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { announceChange, connectorChangedMessage, followChanges } from '../../../src/connector/changes.js';
import type { Bus } from '../../../src/delivery/bus.js';
import { busNodes, nextOn, type BusNodes, type Transport } from '../../helpers/buses.js';

const log = pino({ level: 'silent' });

describe.each<Transport>(['loopback', 'redis'])('a changed connector on the %s bus', (transport) => {
  let nodes: BusNodes | undefined;
  afterEach(async () => {
    await nodes?.close();
    nodes = undefined;
  });

  it('reloads the connector on the leader only, never on the node that changed it', async () => {
    nodes = await busNodes(transport, 3);
    const [changer, leader, follower] = nodes.buses as [Bus, Bus, Bus];
    const reloads: string[] = [];
    let leaderReloaded!: () => void;
    const leaderReloads = new Promise<void>((resolve) => (leaderReloaded = resolve));
    followChanges({
      bus: leader,
      leadership: { isLeader: () => true },
      reload: async () => {
        reloads.push('leader');
        leaderReloaded();
      },
      log,
    });
    followChanges({ bus: follower, leadership: { isLeader: () => false }, reload: async () => void reloads.push('follower'), log });
    followChanges({ bus: changer, leadership: { isLeader: () => true }, reload: async () => void reloads.push('changer'), log });
    const followerHeard = nextOn(follower, connectorChangedMessage);

    announceChange(changer);

    await leaderReloads;
    await followerHeard;
    expect(reloads).toEqual(['leader']);
  });
});

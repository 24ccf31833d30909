// Butler's own bus message: a decision stored on a node that does not lead reaches the leader's
// Butler, on the loopback bus of a single process and on cluster mode's Redis bus, with the same code.
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { decisionMessage, followDecisions, forwardDecision } from '../../../src/butler/decisions.js';
import type { Bus } from '../../../src/delivery/bus.js';
import { busNodes, nextOn, type BusNodes, type Transport } from '../../helpers/buses.js';

const log = pino({ level: 'silent' });

describe.each<Transport>(['loopback', 'redis'])('a forwarded decision on the %s bus', (transport) => {
  let nodes: BusNodes | undefined;
  afterEach(async () => {
    await nodes?.close();
    nodes = undefined;
  });

  it('reaches the leader, which acts on it; a node that does not lead ignores it', async () => {
    nodes = await busNodes(transport, 3);
    const [decider, leader, follower] = nodes.buses as [Bus, Bus, Bus];
    const acted: Array<{ node: string; actionId: string }> = [];
    let leaderActed!: () => void;
    const leaderActs = new Promise<void>((resolve) => (leaderActed = resolve));
    followDecisions({
      bus: leader,
      leadership: { isLeader: () => true },
      act: async (actionId) => {
        acted.push({ node: 'leader', actionId });
        leaderActed();
      },
      log,
    });
    followDecisions({ bus: follower, leadership: { isLeader: () => false }, act: async (actionId) => void acted.push({ node: 'follower', actionId }), log });
    // Subscribed after `followDecisions`: once this hears the decision, the follower's handler has run.
    const followerHeard = nextOn(follower, decisionMessage);

    forwardDecision(decider, 'act-42');

    await leaderActs;
    expect(await followerHeard).toEqual({ actionId: 'act-42' });
    expect(acted).toEqual([{ node: 'leader', actionId: 'act-42' }]);
  });
});

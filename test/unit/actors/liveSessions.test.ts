// Revocation across nodes: closing a user's sockets (or everyone's) closes them here and on every
// other node, on the loopback bus of a single process and on cluster mode's Redis bus, with the
// same code; a node never closes twice for its own message.
import { afterEach, describe, expect, it } from 'vitest';
import { closeAllMessage, closeUserMessage, createLiveSessions } from '../../../src/actors/liveSessions.js';
import type { RouterRef } from '../../../src/actors/connection.js';
import type { Bus } from '../../../src/delivery/bus.js';
import { busNodes, nextOn, type BusNodes, type Transport } from '../../helpers/buses.js';

/** One node's router inbox and directory, recorded. */
function recordingNode(bus: Bus) {
  const events: unknown[] = [];
  const router = { send: (event: unknown) => void events.push(event) } as unknown as RouterRef;
  const directory = { forget: (userId: number) => void events.push({ forget: userId }), clear: () => void events.push({ clear: true }) };
  return { events, sessions: createLiveSessions(router, directory, bus) };
}

describe.each<Transport>(['loopback', 'redis'])('live sessions on the %s bus', (transport) => {
  let nodes: BusNodes | undefined;
  afterEach(async () => {
    await nodes?.close();
    nodes = undefined;
  });

  it("close a user's sockets and everyone's here and on the other node, once each", async () => {
    nodes = await busNodes(transport, 2);
    const [busA, busB] = nodes.buses as [Bus, Bus];
    const a = recordingNode(busA);
    const b = recordingNode(busB);
    const userClosed = nextOn(busB, closeUserMessage);
    a.sessions.endUser(7, 4003, 'revoked');
    expect(await userClosed).toEqual({ userId: 7, code: 4003, reason: 'revoked' });
    const allClosed = nextOn(busA, closeAllMessage);
    b.sessions.endAll(4004, 'reset');
    await allClosed;

    const closeUser = [{ forget: 7 }, { type: 'CLOSE_USER', userId: 7, code: 4003, reason: 'revoked' }];
    const closeAll = [{ clear: true }, { type: 'CLOSE_ALL', code: 4004, reason: 'reset' }];
    expect(a.events).toEqual([...closeUser, ...closeAll]);
    expect(b.events).toEqual([...closeUser, ...closeAll]);
  });
});

// The bus port's own rules: a node never hears itself, a body is checked against the declaring
// part's schema before any handler sees it, an unknown kind is reported to the transport, and an
// unsubscribed handler hears nothing more.
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createBusInbox, createLoopbackBus, defineBusMessage } from '../../../src/delivery/bus.js';

const ping = defineBusMessage('test-ping', z.object({ n: z.number().int() }));

describe('the bus port', () => {
  it('carries a message to the other nodes of the loopback bus, never back to its sender', () => {
    const medium = createLoopbackBus();
    const [a, b, c] = [medium.node(), medium.node(), medium.node()];
    const heard: string[] = [];
    a.subscribe(ping, ({ n }) => heard.push(`a${n}`));
    b.subscribe(ping, ({ n }) => heard.push(`b${n}`));
    c.subscribe(ping, ({ n }) => heard.push(`c${n}`));
    a.publish(ping, { n: 1 });
    expect(heard).toEqual(['b1', 'c1']);
  });

  it('hands a handler only bodies its schema accepts, and says which kinds nobody declared', () => {
    const inbox = createBusInbox();
    const heard: unknown[] = [];
    const off = inbox.subscribe(ping, (body) => heard.push(body));
    expect(inbox.receive('test-ping', { n: 'one' })).toBe('invalid body');
    expect(inbox.receive('test-other', { n: 1 })).toBe('unknown kind');
    expect(inbox.receive('test-ping', { n: 2, extra: true })).toBe('handled');
    off();
    inbox.receive('test-ping', { n: 3 });
    expect(heard).toEqual([{ n: 2 }]);
  });

  it('keeps "batch" for the committed batches', () => {
    expect(() => defineBusMessage('batch', z.object({}))).toThrow(/batch/);
  });
});

import { createActor, setup } from 'xstate';
import { describe, expect, it } from 'vitest';
import { createTracer } from '../../../src/testing/trace.js';

const door = setup({ types: { events: {} as { type: 'OPEN' } | { type: 'CLOSE' } | { type: 'KNOCK' } } }).createMachine({
  initial: 'closed',
  states: { closed: { on: { OPEN: 'open' } }, open: { on: { CLOSE: 'closed' } } },
});

describe('the transition trace', () => {
  it('records events and state changes in order, under the names the kit gives', () => {
    let now = 1_000;
    const tracer = createTracer({ now: () => now, nameOf: (ref) => ((ref as { id?: string }).id === 'front' ? 'front-door' : undefined) });
    const actor = createActor(door, { id: 'front', inspect: (e) => tracer.inspect(e) }).start();
    now += 5;
    actor.send({ type: 'OPEN' });
    actor.send({ type: 'KNOCK' }); // no transition: an event only
    now += 7;
    actor.send({ type: 'CLOSE' });
    actor.stop();

    const entries = tracer.entries();
    expect(entries.map(({ kind, event, before, state }) => ({ kind, event, before, state }))).toEqual([
      { kind: 'started', event: undefined, before: undefined, state: undefined },
      { kind: 'event', event: 'xstate.init', before: undefined, state: undefined },
      { kind: 'transition', event: 'xstate.init', before: undefined, state: 'closed' },
      { kind: 'event', event: 'OPEN', before: undefined, state: undefined },
      { kind: 'transition', event: 'OPEN', before: 'closed', state: 'open' },
      { kind: 'event', event: 'KNOCK', before: undefined, state: undefined },
      { kind: 'event', event: 'CLOSE', before: undefined, state: undefined },
      { kind: 'transition', event: 'CLOSE', before: 'open', state: 'closed' },
      { kind: 'stopped', event: expect.any(String), before: undefined, state: 'stopped' },
    ]);
    expect(entries.every((e) => e.actor === 'front-door')).toBe(true);
    expect(entries.map((e) => e.seq)).toEqual(entries.map((_, i) => i));
    expect(entries.find((e) => e.event === 'CLOSE')?.at).toBe(12);
    expect(tracer.format(entries.filter((e) => e.kind === 'transition'))).toBe(
      [
        '  +    0ms front-door: (start) → closed on xstate.init',
        '  +    5ms front-door: closed → open on OPEN',
        '  +   12ms front-door: open → closed on CLOSE',
      ].join('\n'),
    );
    expect(tracer.entries({ actor: 'back-door' })).toEqual([]);
    expect(tracer.entries({ actor: /door$/ })).toHaveLength(entries.length);
  });
});

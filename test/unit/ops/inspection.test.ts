// Inspection: sources plug in and out, state values read as one string, any actor plugs in with
// actorSource, and safeView keeps secrets, functions and sockets out of every snapshot.
import { describe, expect, it } from 'vitest';
import { assign, createActor, setup } from 'xstate';
import { actorSource, createInspection, safeView, stateOf, type InspectableSource } from '../../../src/ops/inspection.js';

describe('stateOf', () => {
  it('flattens nested and parallel state values', () => {
    expect(stateOf('idle')).toBe('idle');
    expect(stateOf({ open: 'live' })).toBe('open.live');
    expect(stateOf({ a: { b: 'c' } })).toBe('a.b.c');
    expect(stateOf({ left: 'on', right: {} })).toBe('left.on,right');
  });
});

describe('safeView', () => {
  class Socket {
    fd = 3;
  }
  it('redacts anything named like a secret, at any depth', () => {
    const view = safeView({
      user: { id: 1, password_hash: 'scrypt$abc' },
      credential: 'tok',
      apiKey: 'k',
      headers: { Authorization: 'Bearer x' },
      nested: { deeper: { jwt: 'eyJ', app_secret: 's', ok: 'visible' } },
    });
    expect(view).toEqual({
      user: { id: 1, password_hash: '[redacted]' },
      credential: '[redacted]',
      apiKey: '[redacted]',
      headers: { Authorization: '[redacted]' },
      nested: { deeper: { jwt: '[redacted]', app_secret: '[redacted]', ok: 'visible' } },
    });
  });

  it('drops functions, marks class instances, follows actor refs by id, and converts collections', () => {
    const actor = createActor(setup({}).createMachine({ id: 'm' }), { systemId: 'm' });
    const view = safeView({
      now: () => 1,
      socket: new Socket(),
      ref: actor,
      when: new Date(0),
      tags: new Set(['a']),
      byId: new Map([[7, { n: 1 }]]),
      big: 10n,
      inf: Infinity,
    });
    expect(view).toEqual({
      socket: '[Socket]',
      ref: { actor: actor.id },
      when: '1970-01-01T00:00:00.000Z',
      tags: ['a'],
      byId: { 7: { n: 1 } },
      big: '10',
      inf: 'Infinity',
    });
  });

  it('bounds depth and length', () => {
    let deep: Record<string, unknown> = { leaf: true };
    for (let i = 0; i < 10; i++) deep = { d: deep };
    expect(JSON.stringify(safeView(deep))).toContain('[…]');
    expect((safeView(Array.from({ length: 5000 }, (_, i) => i)) as unknown[]).length).toBe(1000);
  });
});

describe('createInspection', () => {
  const source = (name: string, ids: string[]): InspectableSource => ({
    name,
    summary: ({ limit }) => ({ count: ids.length, ids: ids.slice(0, limit), token: 'leak' }),
    snapshot: (id) => (ids.includes(id) ? { id, kind: name, state: 'on', status: 'active', context: { secret: 's', n: 1 } } : undefined),
  });

  it('summarises every source in its own section and finds snapshots by id, without secrets', () => {
    const inspection = createInspection();
    inspection.add(source('alpha', ['a-1', 'a-2']));
    const remove = inspection.add(source('beta', ['b-1']));
    expect(inspection.summary({ limit: 1 })).toEqual({
      alpha: { count: 2, ids: ['a-1'], token: '[redacted]' },
      beta: { count: 1, ids: ['b-1'], token: '[redacted]' },
    });
    expect(inspection.snapshot('b-1')).toEqual({ id: 'b-1', kind: 'beta', state: 'on', status: 'active', context: { secret: '[redacted]', n: 1 } });
    remove();
    expect(inspection.snapshot('b-1')).toBeUndefined();
    expect(Object.keys(inspection.summary({ limit: 10 }))).toEqual(['alpha']);
  });

  it('refuses two sources with one name', () => {
    const inspection = createInspection();
    inspection.add(source('alpha', []));
    expect(() => inspection.add(source('alpha', []))).toThrow('already registered');
  });

  it('plugs any actor in with actorSource, projecting its context', () => {
    const machine = setup({ types: { context: {} as { apiToken: string; turns: number }, events: {} as { type: 'GO' } } }).createMachine({
      id: 'bot',
      context: { apiToken: 'sk-live', turns: 0 },
      initial: 'idle',
      states: {
        idle: { on: { GO: { target: 'busy.thinking', actions: assign({ turns: ({ context }) => context.turns + 1 }) } } },
        busy: { initial: 'thinking', states: { thinking: {} } },
      },
    });
    const actor = createActor(machine).start();
    const inspection = createInspection();
    inspection.add(actorSource({ name: 'bot', id: 'bot', kind: 'bot', actor }));
    inspection.add(actorSource({ name: 'bot-projected', id: 'bot-2', kind: 'bot', actor, project: (c) => ({ turns: c.turns }) }));
    actor.send({ type: 'GO' });
    expect(inspection.summary({ limit: 5 })['bot']).toEqual({ id: 'bot', kind: 'bot', state: 'busy.thinking', status: 'active' });
    expect(inspection.snapshot('bot')).toEqual({
      id: 'bot',
      kind: 'bot',
      state: 'busy.thinking',
      status: 'active',
      context: { apiToken: '[redacted]', turns: 1 },
    });
    expect(inspection.snapshot('bot-2')?.context).toEqual({ turns: 1 });
    actor.stop();
    expect(inspection.snapshot('bot')?.status).toBe('stopped');
  });
});

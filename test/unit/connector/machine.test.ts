// The connector lifecycle machine three ways: the pure transition() table over every state and
// event (allowed and refused), an actor's behaviour with getSnapshot(), and can() for the
// forbidden moves; plus the snapshot restored from a stored state and the machine described as data.
import { describe, expect, it } from 'vitest';
import { createActor, initialTransition, transition } from 'xstate';
import {
  allowedActions,
  connectorMachine,
  ConnectorStates,
  describeMachine,
  snapshotOf,
  step,
  type ConnectorEvent,
  type ConnectorState,
} from '../../../src/connector/machine.js';

const E = {
  update: { type: 'UPDATE', credentials: false },
  credentials: { type: 'UPDATE', credentials: true },
  verified: { type: 'VERIFIED' },
  enable: { type: 'ENABLE' },
  disable: { type: 'DISABLE' },
  test: { type: 'TEST_MESSAGE' },
} satisfies Record<string, ConnectorEvent>;
type EventName = keyof typeof E;

/** Every (state, event): the next state and effects, or null for a refusal (state unchanged). */
const TABLE: Record<ConnectorState, Record<EventName, [ConnectorState, string[]] | null>> = {
  draft: {
    update: ['draft', ['applyChanges']],
    credentials: ['draft', ['applyChanges']],
    verified: ['verified', ['markVerified']],
    enable: null,
    disable: null,
    test: ['draft', ['logTestMessage']],
  },
  verified: {
    update: ['verified', ['applyChanges']],
    credentials: ['draft', ['applyChanges']],
    verified: ['verified', ['markVerified']],
    enable: ['enabled', ['startConnection']],
    disable: null,
    test: ['verified', ['logTestMessage']],
  },
  enabled: {
    update: ['enabled', ['applyChanges']],
    credentials: ['draft', ['stopConnection', 'applyChanges']],
    verified: ['enabled', ['markVerified']],
    enable: null,
    disable: ['disabled', ['stopConnection']],
    test: ['enabled', ['sendTestMessage']],
  },
  disabled: {
    update: ['disabled', ['applyChanges']],
    credentials: ['draft', ['applyChanges']],
    verified: ['disabled', ['markVerified']],
    enable: ['enabled', ['startConnection']],
    disable: null,
    test: ['disabled', ['logTestMessage']],
  },
};

const rows = ConnectorStates.flatMap((state) => (Object.keys(E) as EventName[]).map((event) => ({ state, event, expected: TABLE[state][event] })));

describe('connector machine', () => {
  it('starts as a draft', () => {
    const [snapshot, actions] = initialTransition(connectorMachine);
    expect(snapshot.value).toBe('draft');
    expect(actions).toEqual([]);
  });

  it.each(rows)('$state + $event', ({ state, event, expected }) => {
    const result = step(state, E[event]);
    if (expected === null) {
      expect(result).toEqual({ ok: false, state });
      expect(snapshotOf(state).can(E[event])).toBe(false);
    } else {
      expect(result).toEqual({ ok: true, state: expected[0], effects: expected[1] });
      // The same through xstate's own pure transition().
      const [next, actions] = transition(connectorMachine, snapshotOf(state), E[event]);
      expect(next.value).toBe(expected[0]);
      expect(actions.map((a) => a.type)).toEqual(expected[1]);
    }
  });

  it('never leaves the four states, whatever the sequence', () => {
    const events = Object.values(E);
    let state: ConnectorState = 'draft';
    // A fixed pseudo-random walk: deterministic, and it visits every state many times.
    let seed = 7;
    const visited = new Set<ConnectorState>();
    for (let i = 0; i < 2000; i++) {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      state = step(state, events[seed % events.length]!).state;
      expect(ConnectorStates).toContain(state);
      visited.add(state);
    }
    expect(visited.size).toBe(4);
  });

  it('runs as an actor: verify, enable, change credentials, back to draft', () => {
    const actor = createActor(connectorMachine).start();
    expect(actor.getSnapshot().value).toBe('draft');
    actor.send({ type: 'ENABLE' });
    expect(actor.getSnapshot().value).toBe('draft');
    actor.send({ type: 'VERIFIED' });
    actor.send({ type: 'ENABLE' });
    expect(actor.getSnapshot().value).toBe('enabled');
    actor.send({ type: 'UPDATE', credentials: false });
    expect(actor.getSnapshot().value).toBe('enabled');
    actor.send({ type: 'UPDATE', credentials: true });
    expect(actor.getSnapshot().value).toBe('draft');
    expect(actor.getSnapshot().can({ type: 'ENABLE' })).toBe(false);
    actor.stop();
  });

  it('names its effects so a caller can provide them', () => {
    const ran: string[] = [];
    const machine = connectorMachine.provide({
      actions: {
        startConnection: () => void ran.push('start'),
        stopConnection: () => void ran.push('stop'),
      },
    });
    const actor = createActor(machine, { snapshot: snapshotOf('verified') }).start();
    actor.send({ type: 'ENABLE' });
    actor.send({ type: 'DISABLE' });
    expect(ran).toEqual(['start', 'stop']);
  });

  it('restores a stored state through a persisted snapshot', () => {
    for (const state of ConnectorStates) {
      const actor = createActor(connectorMachine, { snapshot: snapshotOf(state) }).start();
      const persisted = JSON.parse(JSON.stringify(actor.getPersistedSnapshot())) as unknown;
      const restored = createActor(connectorMachine, { snapshot: persisted as never }).start();
      expect(restored.getSnapshot().value).toBe(state);
    }
  });

  it('lists the actions each state allows', () => {
    expect(allowedActions('draft')).toEqual(['verify', 'update', 'test_message']);
    expect(allowedActions('verified')).toEqual(['verify', 'update', 'enable', 'test_message']);
    expect(allowedActions('enabled')).toEqual(['verify', 'update', 'disable', 'test_message']);
    expect(allowedActions('disabled')).toEqual(['verify', 'update', 'enable', 'test_message']);
  });

  it('describes itself with exactly the transitions of the table', () => {
    const description = describeMachine();
    expect(description.states).toEqual([...ConnectorStates]);
    expect(description.transitions[0]).toEqual({ from: null, event: 'CREATE', to: 'draft', effects: [] });
    for (const { state, event, expected } of rows) {
      const candidates = description.transitions.filter((t) => t.from === state && t.event === E[event].type);
      if (expected === null) expect(candidates, `${state} ${event}`).toEqual([]);
      else
        expect(
          candidates.map((c) => c.to),
          `${state} ${event}`,
        ).toContain(expected[0]);
    }
  });
});

// The remote A2A agent proxy's machine, three ways: a transition table read with the pure
// `transition()`, a running actor with fake timers (recheck and backoff), and the moves it refuses.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createActor, initialTransition, transition } from 'xstate';
import { backoffDelay, proxyMachine, type ProxyContext, type ProxyEvent } from '../../../../src/a2a/remote/proxyMachine.js';

const TIMING = { recheckMs: 1000, backoffMs: 100, maxBackoffMs: 800 };
type Snapshot = ReturnType<typeof proxyMachine.resolveState>;
type StateValue = Snapshot['value'];

function at(value: StateValue, context: Partial<ProxyContext> = {}): Snapshot {
  const [initial] = initialTransition(proxyMachine, TIMING);
  return proxyMachine.resolveState({ value, context: { ...initial.context, probe: 3, ...context } });
}

/** The effects a transition asks for (assignments are applied to the snapshot, not listed). */
const effects = (actions: Array<{ type: string }>) => actions.map((a) => a.type).filter((t) => !t.startsWith('xstate.'));

describe('remote agent proxy machine: transition table', () => {
  const rows: Array<[from: StateValue, event: ProxyEvent, to: StateValue, effects: string[]]> = [
    ['stopped', { type: 'START' }, 'probing', ['probe']],
    ['probing', { type: 'PROBE_OK', probe: 3 }, { online: 'waiting' }, ['bind']],
    ['probing', { type: 'PROBE_OK', probe: 2 }, 'probing', []],
    ['probing', { type: 'PROBE_FAILED', probe: 3, error: 'down' }, 'offline', []],
    ['probing', { type: 'STOP' }, 'stopped', []],
    [{ online: 'waiting' }, { type: 'CHECK_NOW' }, { online: 'checking' }, ['probe']],
    [{ online: 'checking' }, { type: 'PROBE_OK', probe: 3 }, { online: 'waiting' }, []],
    [{ online: 'checking' }, { type: 'PROBE_FAILED', probe: 3, error: 'down' }, 'offline', ['unbind']],
    [{ online: 'checking' }, { type: 'PROBE_FAILED', probe: 1, error: 'late' }, { online: 'checking' }, []],
    [{ online: 'waiting' }, { type: 'STOP' }, 'stopped', ['unbind']],
    ['offline', { type: 'CHECK_NOW' }, 'probing', ['probe']],
    ['offline', { type: 'STOP' }, 'stopped', []],
    ['stopped', { type: 'PROBE_OK', probe: 3 }, 'stopped', []],
  ];
  it.each(rows)('%j + %j → %j', (from, event, to, expected) => {
    const [next, actions] = transition(proxyMachine, at(from), event);
    expect(next.value).toEqual(to);
    expect(effects(actions)).toEqual(expected);
  });

  it('counts failures and keeps the reason; a success clears both', () => {
    const [failed] = transition(proxyMachine, at('probing'), { type: 'PROBE_FAILED', probe: 3, error: 'connection refused' });
    expect(failed.context).toMatchObject({ failures: 1, lastError: 'connection refused' });
    const [ok] = transition(proxyMachine, at('probing', { failures: 4, lastError: 'x' }), { type: 'PROBE_OK', probe: 3 });
    expect(ok.context).toMatchObject({ failures: 0, lastError: undefined });
  });

  it('backs off by doubling from the first wait up to the cap', () => {
    expect([1, 2, 3, 4, 5].map((n) => backoffDelay(TIMING, n))).toEqual([100, 200, 400, 800, 800]);
  });

  it('refuses to go online from stopped or offline without a probe', () => {
    expect(at('stopped').can({ type: 'PROBE_OK', probe: 3 })).toBe(false);
    expect(at('offline').can({ type: 'PROBE_OK', probe: 3 })).toBe(false);
    expect(at('stopped').can({ type: 'START' })).toBe(true);
  });
});

describe('remote agent proxy machine: a running actor', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('checks again every interval while online, and after a failure waits longer each time', () => {
    const log: string[] = [];
    const actor = createActor(
      proxyMachine.provide({
        actions: {
          probe: ({ context }) => void log.push(`probe ${context.probe}`),
          bind: () => void log.push('bind'),
          unbind: () => void log.push('unbind'),
        },
      }),
      { input: TIMING },
    ).start();
    actor.send({ type: 'START' });
    actor.send({ type: 'PROBE_OK', probe: 1 });
    expect(log).toEqual(['probe 1', 'bind']);
    vi.advanceTimersByTime(999);
    expect(log).toHaveLength(2);
    vi.advanceTimersByTime(1);
    expect(log.at(-1)).toBe('probe 2');
    actor.send({ type: 'PROBE_FAILED', probe: 2, error: 'down' });
    expect(log.at(-1)).toBe('unbind');
    vi.advanceTimersByTime(100);
    expect(log.at(-1)).toBe('probe 3');
    actor.send({ type: 'PROBE_FAILED', probe: 3, error: 'down' });
    vi.advanceTimersByTime(199);
    expect(log.at(-1)).toBe('probe 3');
    vi.advanceTimersByTime(1);
    expect(log.at(-1)).toBe('probe 4');
    actor.send({ type: 'PROBE_OK', probe: 4 });
    expect(log.at(-1)).toBe('bind');
    actor.send({ type: 'STOP' });
    expect(log.at(-1)).toBe('unbind');
    vi.advanceTimersByTime(10_000);
    expect(log.at(-1)).toBe('unbind');
    actor.stop();
  });
});

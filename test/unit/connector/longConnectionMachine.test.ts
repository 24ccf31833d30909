// The platform long connection's lifecycle machine, three ways: a transition table read with the pure
// `transition()`, behaviour of a running actor whose effects are recording fakes (fake timers for the
// backoff and the status checks), and the moves it refuses (`snapshot.can`).
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createActor, initialTransition, transition, type Actor } from 'xstate';
import {
  APP_ID_PATTERN,
  backoffDelay,
  longConnectionMachine,
  type LongConnectionContext,
  type LongConnectionEvent,
  type LongConnectionSnapshot,
  type LongConnectionState,
} from '../../../src/connector/longConnectionMachine.js';
import { APP_ID_PATTERN as DRIVER_APP_ID_PATTERN } from '../../../src/connector/longConnection.js';

const CREDENTIALS = { appId: 'cli_0123456789abcdef', appSecret: 'app-secret-1' };
const BAD_APP_ID = { appId: 'my-app', appSecret: 'app-secret-1' };
const INPUT = { backoff: { initialMs: 100, maxMs: 1_000 }, watchMs: 50, random: () => 0 };

type StateValue = LongConnectionSnapshot['value'];

/** A snapshot in `value` with the context a running connection would have there. */
function at(value: StateValue, context: Partial<LongConnectionContext> = {}): LongConnectionSnapshot {
  const [initial] = initialTransition(longConnectionMachine, INPUT);
  return longConnectionMachine.resolveState({ value, context: { ...initial.context, credentials: CREDENTIALS, attempt: 1, ...context } });
}

/** The named effects a transition asks for, in order (XState's own timer bookkeeping left out). */
function effects(actions: Array<{ type: string }>): string[] {
  return actions.map((a) => a.type).filter((t) => !t.startsWith('xstate.'));
}

/** The delays a transition arms, by timer id. */
function timers(actions: Array<{ type: string; params?: unknown }>): Array<{ id: string; delay: number }> {
  return actions
    .filter((a) => a.type === 'xstate.raise')
    .map((a) => {
      const params = a.params as { id: string; delay: number };
      return { id: params.id, delay: params.delay };
    });
}

const CONNECTED = { connected: 'watching' } as const;

describe('long connection machine: transition table', () => {
  const rows: Array<[from: StateValue, event: LongConnectionEvent, to: StateValue, effects: string[]]> = [
    ['stopped', { type: 'START', credentials: CREDENTIALS }, 'loading', ['closeClient', 'loadSdk']],
    ['stopped', { type: 'START', credentials: BAD_APP_ID }, 'refused', ['closeClient', 'report']],
    ['stopped', { type: 'STOP' }, 'stopped', ['closeClient']],
    ['refused', { type: 'START', credentials: CREDENTIALS }, 'loading', ['closeClient', 'loadSdk']],
    ['refused', { type: 'START', credentials: BAD_APP_ID }, 'refused', ['closeClient', 'report']],
    ['loading', { type: 'SDK_LOADED', attempt: 1 }, 'connecting', ['report', 'startClient']],
    ['loading', { type: 'CLIENT_FAILED', attempt: 1, message: 'no module' }, 'waiting', ['closeClient', 'report']],
    ['loading', { type: 'START', credentials: CREDENTIALS }, 'loading', ['closeClient', 'loadSdk']],
    ['connecting', { type: 'CLIENT_READY', attempt: 1 }, CONNECTED, ['report']],
    ['connecting', { type: 'CLIENT_FAILED', attempt: 1, message: 'refused' }, 'waiting', ['closeClient', 'report']],
    ['connecting', { type: 'STOP' }, 'stopped', ['closeClient', 'report']],
    ['connecting', { type: 'START', credentials: CREDENTIALS }, 'loading', ['closeClient', 'loadSdk']],
    [CONNECTED, { type: 'CONNECTION_LOST', attempt: 1, status: 'closed' }, 'waiting', ['closeClient', 'report']],
    [CONNECTED, { type: 'CLIENT_FAILED', attempt: 1, message: 'socket error' }, 'waiting', ['closeClient', 'report']],
    [CONNECTED, { type: 'STOP' }, 'stopped', ['closeClient', 'report']],
    ['waiting', { type: 'STOP' }, 'stopped', ['closeClient', 'report']],
    ['waiting', { type: 'START', credentials: CREDENTIALS }, 'loading', ['closeClient', 'loadSdk']],
  ];

  it.each(rows)('%j + %j → %j', (from, event, to, expected) => {
    // What a reader saw in each state: loading has reported nothing yet since a stop.
    const reported: LongConnectionState =
      from === 'loading' || from === 'stopped' ? 'stopped' : typeof from === 'string' ? (from as LongConnectionState) : 'connected';
    const [next, actions] = transition(longConnectionMachine, at(from, { reported }), event);
    expect(next.value).toEqual(to);
    expect(effects(actions)).toEqual(expected);
  });

  it('reports each state with the line the connector log shows', () => {
    const [connecting, a1] = transition(longConnectionMachine, at('loading'), { type: 'SDK_LOADED', attempt: 1 });
    expect(a1.find((a) => a.type === 'report')?.params).toEqual({ state: 'connecting', detail: 'opening the long connection' });
    expect(a1.find((a) => a.type === 'startClient')?.params).toEqual({ attempt: 1, credentials: CREDENTIALS });
    const [, a2] = transition(longConnectionMachine, connecting, { type: 'CLIENT_READY', attempt: 1 });
    expect(a2.find((a) => a.type === 'report')?.params).toEqual({ state: 'connected', detail: 'long connection established' });
    const [, a3] = transition(longConnectionMachine, at('stopped'), { type: 'START', credentials: BAD_APP_ID });
    expect(a3.find((a) => a.type === 'report')?.params).toEqual({
      state: 'refused',
      detail: 'long connection not opened: app_id must be "cli_" followed by 16 hexadecimal digits',
    });
    const [, a4] = transition(longConnectionMachine, at(CONNECTED, { reported: 'connected' }), { type: 'STOP' });
    expect(a4.find((a) => a.type === 'report')?.params).toEqual({ state: 'stopped', detail: 'long connection closed' });
  });

  it('a failure reports why and how long it waits, and arms the backoff timer', () => {
    const [waiting, actions] = transition(longConnectionMachine, at(CONNECTED, { reported: 'connected' }), {
      type: 'CONNECTION_LOST',
      attempt: 1,
      status: 'reconnecting',
    });
    expect(actions.find((a) => a.type === 'report')?.params).toEqual({
      state: 'waiting',
      detail: 'connection lost (reconnecting); reconnecting in 50 ms (attempt 1)',
    });
    expect(timers(actions)).toEqual([{ id: 'xstate.after.backoff.longConnection.waiting', delay: 50 }]);
    expect(waiting.context).toMatchObject({ failures: 1, delayMs: 50, reported: 'waiting' });

    const [, failed] = transition(longConnectionMachine, at('connecting', { reported: 'connecting' }), {
      type: 'CLIENT_FAILED',
      attempt: 1,
      message: 'handshake timed out',
    });
    expect(failed.find((a) => a.type === 'report')?.params).toEqual({
      state: 'waiting',
      detail: 'long connection failed: handshake timed out; reconnecting in 50 ms (attempt 1)',
    });
  });

  it('connected arms the status check every watchMs; leaving it cancels the check', () => {
    const [, entered] = transition(longConnectionMachine, at('connecting'), { type: 'CLIENT_READY', attempt: 1 });
    expect(timers(entered)).toEqual([{ id: 'xstate.after.watch.longConnection.connected.watching', delay: 50 }]);
    const [, left] = transition(longConnectionMachine, at(CONNECTED), { type: 'STOP' });
    expect(left.map((a) => a.type)).toContain('xstate.cancel');
  });

  it('each client opened is a new attempt; START and a success start the failure count afresh', () => {
    const [loading] = transition(longConnectionMachine, at('waiting', { attempt: 3, failures: 3 }), { type: 'START', credentials: CREDENTIALS });
    expect(loading.context).toMatchObject({ attempt: 4, failures: 0 });
    const [connected] = transition(longConnectionMachine, at('connecting', { failures: 5 }), { type: 'CLIENT_READY', attempt: 1 });
    expect(connected.context.failures).toBe(0);
  });

  it('a stop before anything was reported stays quiet', () => {
    const [stopped, actions] = transition(longConnectionMachine, at('loading', { reported: 'stopped' }), { type: 'STOP' });
    expect(stopped.value).toBe('stopped');
    expect(effects(actions)).toEqual(['closeClient']);
  });
});

describe('long connection machine: refused moves', () => {
  it('ignores the events of a client from an older attempt', () => {
    const snapshot = at('connecting', { attempt: 2 });
    expect(snapshot.can({ type: 'CLIENT_READY', attempt: 1 })).toBe(false);
    expect(snapshot.can({ type: 'CLIENT_FAILED', attempt: 1, message: 'late' })).toBe(false);
    expect(snapshot.can({ type: 'CLIENT_READY', attempt: 2 })).toBe(true);
    expect(at(CONNECTED, { attempt: 2 }).can({ type: 'CONNECTION_LOST', attempt: 1, status: 'closed' })).toBe(false);
    expect(at('loading', { attempt: 2 }).can({ type: 'SDK_LOADED', attempt: 1 })).toBe(false);
  });

  it('takes no client event while stopped, refused or waiting (its client is closed)', () => {
    for (const value of ['stopped', 'refused', 'waiting'] as const) {
      const snapshot = at(value);
      expect(snapshot.can({ type: 'SDK_LOADED', attempt: 1 })).toBe(false);
      expect(snapshot.can({ type: 'CLIENT_READY', attempt: 1 })).toBe(false);
      expect(snapshot.can({ type: 'CLIENT_FAILED', attempt: 1, message: 'late' })).toBe(false);
      expect(snapshot.can({ type: 'CONNECTION_LOST', attempt: 1, status: 'closed' })).toBe(false);
      expect(snapshot.can({ type: 'START', credentials: CREDENTIALS })).toBe(true);
      expect(snapshot.can({ type: 'STOP' })).toBe(true);
    }
  });

  it('is ready only once: no CLIENT_READY while loading or connected', () => {
    expect(at('loading').can({ type: 'CLIENT_READY', attempt: 1 })).toBe(false);
    expect(at(CONNECTED).can({ type: 'CLIENT_READY', attempt: 1 })).toBe(false);
    expect(at('connecting').can({ type: 'CONNECTION_LOST', attempt: 1, status: 'closed' })).toBe(false);
  });
});

describe('long connection machine: running', () => {
  let actor: Actor<typeof longConnectionMachine>;
  let log: string[];
  let reports: Array<[LongConnectionState, string]>;
  /** What the fake client's status check answers. */
  let clientStatus: string;

  beforeEach(() => {
    vi.useFakeTimers();
    log = [];
    reports = [];
    clientStatus = 'connected';
    const machine = longConnectionMachine.provide({
      actions: {
        loadSdk: (_, { attempt }) => log.push(`loadSdk ${attempt}`),
        startClient: (_, { attempt, credentials }) => log.push(`startClient ${attempt} ${credentials.appId}`),
        checkClient: (_, { attempt }) => {
          log.push(`checkClient ${attempt}`);
          if (clientStatus !== 'connected') actor.send({ type: 'CONNECTION_LOST', attempt, status: clientStatus });
        },
        closeClient: () => log.push('closeClient'),
        report: (_, { state, detail }) => reports.push([state, detail]),
      },
    });
    actor = createActor(machine, { input: INPUT });
    actor.start();
  });

  afterEach(() => {
    actor.stop();
    vi.useRealTimers();
  });

  /** Drives the actor to a connected client of the current attempt. */
  function connect(): number {
    actor.send({ type: 'START', credentials: CREDENTIALS });
    const attempt = actor.getSnapshot().context.attempt;
    actor.send({ type: 'SDK_LOADED', attempt });
    actor.send({ type: 'CLIENT_READY', attempt });
    return attempt;
  }

  it('starts stopped, reporting nothing', () => {
    expect(actor.getSnapshot().value).toBe('stopped');
    expect(actor.getSnapshot().context.reported).toBe('stopped');
    expect(reports).toEqual([]);
  });

  it('loads the SDK, opens a client, and reports connecting then connected', () => {
    actor.send({ type: 'START', credentials: CREDENTIALS });
    expect(actor.getSnapshot().value).toBe('loading');
    // A reader still sees the state before until the SDK is there.
    expect(actor.getSnapshot().context.reported).toBe('stopped');
    actor.send({ type: 'SDK_LOADED', attempt: 1 });
    actor.send({ type: 'CLIENT_READY', attempt: 1 });
    expect(actor.getSnapshot().value).toEqual(CONNECTED);
    expect(actor.getSnapshot().context.reported).toBe('connected');
    expect(log).toEqual(['closeClient', 'loadSdk 1', 'startClient 1 cli_0123456789abcdef']);
    expect(reports.map(([state]) => state)).toEqual(['connecting', 'connected']);
  });

  it('refuses an app_id of the wrong form without opening anything', () => {
    actor.send({ type: 'START', credentials: BAD_APP_ID });
    expect(actor.getSnapshot().value).toBe('refused');
    expect(log).toEqual(['closeClient']);
    expect(reports).toEqual([['refused', 'long connection not opened: app_id must be "cli_" followed by 16 hexadecimal digits']]);
  });

  it('checks the client every watchMs while connected and reconnects after the backoff when it dropped', () => {
    connect();
    log = [];
    vi.advanceTimersByTime(50);
    vi.advanceTimersByTime(50);
    expect(log).toEqual(['checkClient 1', 'checkClient 1']);
    expect(actor.getSnapshot().value).toEqual(CONNECTED);

    clientStatus = 'closed';
    vi.advanceTimersByTime(50);
    expect(actor.getSnapshot().value).toBe('waiting');
    expect(reports.at(-1)).toEqual(['waiting', 'connection lost (closed); reconnecting in 50 ms (attempt 1)']);
    expect(log).toEqual(['checkClient 1', 'checkClient 1', 'checkClient 1', 'closeClient']);

    vi.advanceTimersByTime(49);
    expect(actor.getSnapshot().value).toBe('waiting');
    vi.advanceTimersByTime(1);
    expect(actor.getSnapshot().value).toBe('loading');
    expect(log.at(-1)).toBe('loadSdk 2');
  });

  it('backs off 1×, 2×, 4× … the initial delay up to the cap, and starts afresh after a success', () => {
    actor.send({ type: 'START', credentials: CREDENTIALS });
    const waits: number[] = [];
    for (let i = 0; i < 6; i++) {
      const attempt = actor.getSnapshot().context.attempt;
      actor.send({ type: 'CLIENT_FAILED', attempt, message: 'unreachable' });
      expect(actor.getSnapshot().value).toBe('waiting');
      waits.push(actor.getSnapshot().context.delayMs);
      vi.advanceTimersByTime(actor.getSnapshot().context.delayMs);
      expect(actor.getSnapshot().value).toBe('loading');
    }
    // random() is 0: the lower end of each window, half the ceiling.
    expect(waits).toEqual([50, 100, 200, 400, 500, 500]);
    expect(reports.at(-1)?.[1]).toBe('long connection failed: unreachable; reconnecting in 500 ms (attempt 6)');

    const attempt = actor.getSnapshot().context.attempt;
    actor.send({ type: 'SDK_LOADED', attempt });
    actor.send({ type: 'CLIENT_READY', attempt });
    actor.send({ type: 'CLIENT_FAILED', attempt, message: 'socket error' });
    expect(actor.getSnapshot().context.delayMs).toBe(50);
  });

  it('stop cancels a pending retry and closes the client; a late event of that client changes nothing', () => {
    const attempt = connect();
    actor.send({ type: 'CLIENT_FAILED', attempt, message: 'socket error' });
    actor.send({ type: 'STOP' });
    expect(actor.getSnapshot().value).toBe('stopped');
    expect(reports.at(-1)).toEqual(['stopped', 'long connection closed']);
    vi.advanceTimersByTime(10_000);
    actor.send({ type: 'CLIENT_READY', attempt });
    expect(actor.getSnapshot().value).toBe('stopped');
    expect(log.filter((l) => l.startsWith('loadSdk'))).toEqual(['loadSdk 1']);
  });

  it('a restart with new credentials drops the old client; its events no longer count', () => {
    const first = connect();
    actor.send({ type: 'START', credentials: { appId: 'cli_fedcba9876543210', appSecret: 'app-secret-2' } });
    const second = actor.getSnapshot().context.attempt;
    expect(second).toBe(first + 1);
    actor.send({ type: 'CONNECTION_LOST', attempt: first, status: 'closed' });
    actor.send({ type: 'SDK_LOADED', attempt: second });
    actor.send({ type: 'CLIENT_FAILED', attempt: first, message: 'closed by us' });
    expect(actor.getSnapshot().value).toBe('connecting');
    expect(log.at(-1)).toBe(`startClient ${second} cli_fedcba9876543210`);
  });

  it('a second stop reports nothing more', () => {
    connect();
    actor.send({ type: 'STOP' });
    actor.send({ type: 'STOP' });
    expect(reports.filter(([state]) => state === 'stopped')).toHaveLength(1);
  });
});

describe('long connection machine: parts', () => {
  it('backoffDelay doubles up to the cap and jitters within the upper half', () => {
    const backoff = { initialMs: 500, maxMs: 30_000 };
    expect([0, 1, 2, 3].map((n) => backoffDelay(n, backoff, () => 0))).toEqual([250, 500, 1000, 2000]);
    expect(backoffDelay(0, backoff, () => 1)).toBe(500);
    expect(backoffDelay(20, backoff, () => 0.5)).toBe(22_500);
  });

  it('app ids are "cli_" and 16 hex digits; the driver exports the same pattern', () => {
    expect(APP_ID_PATTERN.test('cli_0123456789abcdef')).toBe(true);
    expect(APP_ID_PATTERN.test('cli_0123456789abcdeg')).toBe(false);
    expect(DRIVER_APP_ID_PATTERN).toBe(APP_ID_PATTERN);
  });
});

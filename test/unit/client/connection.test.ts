// The client's connection machine, its close-code decisions and backoff, and its outbox: pure
// transition tables, behaviour with createActor and fake timers, and what the outbox sends when.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createActor, fromPromise, initialTransition, transition, type SnapshotFrom } from 'xstate';
import { backoffDelay, decideOnClose } from '../../../src/client/closeCodes.js';
import { clientConnectionMachine, type ConnectionEvent, type ProbeResult } from '../../../src/client/connectionMachine.js';
import { DEFAULT_RECONNECT } from '../../../src/client/hubClient.js';
import { Outbox, OutboxFullError } from '../../../src/client/outbox.js';

const reconnect = { initialDelayMs: 1000, maxDelayMs: 30_000, stableAfterMs: 10_000 };

function machineWith(probe: ProbeResult = { verdict: 'retry', message: 'the hub answered 503 (shutting down)' }) {
  const effects: string[] = [];
  const machine = clientConnectionMachine.provide({
    actors: { probe: fromPromise(async () => probe) },
    actions: {
      openSocket: () => void effects.push('open'),
      closeSocket: () => void effects.push('close'),
      abandonSocket: () => void effects.push('abandon'),
      opened: () => void effects.push('opened'),
      stopped: () => void effects.push('stopped'),
    },
  });
  return { machine, effects };
}

function start(options: { probe?: ProbeResult; refreshable?: boolean; reconnect?: typeof reconnect | false; openTimeoutMs?: number } = {}) {
  const { machine, effects } = machineWith(options.probe);
  const actor = createActor(machine, {
    input: { reconnect: options.reconnect ?? reconnect, refreshable: options.refreshable ?? false, random: () => 0.5, openTimeoutMs: options.openTimeoutMs },
  }).start();
  return { actor, effects };
}

describe('decideOnClose', () => {
  it.each<[number, 'reconnect' | 'stop', RegExp]>([
    [1000, 'reconnect', /^closed by the hub \(1000, the hub closed the connection\); reconnecting$/],
    [1001, 'reconnect', /\(1001, the hub is shutting down\); reconnecting$/],
    [1006, 'reconnect', /\(1006, the connection dropped\); reconnecting$/],
    [1008, 'reconnect', /\(1008, the hub refused what this client sent\)/],
    [1009, 'reconnect', /\(1009, a frame was too large for the hub\)/],
    [1011, 'reconnect', /\(1011, the hub failed to resume this connection\)/],
    [4001, 'stop', /\(4001, the credential stopped working .*\); stopping: it needs a new credential$/],
    [4002, 'stop', /\(4002, the session expired\); stopping: log in again$/],
    [4003, 'stop', /\(4003, the hub forbids this connection\); stopping/],
    [4004, 'stop', /\(4004, the hub no longer knows this user\); stopping/],
    [4005, 'reconnect', /\(4005, the user's role changed\); reconnecting/],
    [4008, 'reconnect', /\(4008, too many frames past the rate limit\)/],
    [4010, 'reconnect', /\(4010, too many invalid frames\)/],
    [4011, 'reconnect', /\(4011, this client read too slowly\)/],
    [4999, 'reconnect', /\(4999, the connection closed\); reconnecting$/],
  ])('close %i → %s', (code, verdict, why) => {
    const decision = decideOnClose(code, '', false);
    expect(decision.verdict).toBe(verdict);
    expect(decision.why).toMatch(why);
  });

  it('reconnects after an expired session when the token comes from a function', () => {
    expect(decideOnClose(4002, '', true).verdict).toBe('reconnect');
  });

  it('adds the hub’s reason when it says more than the code', () => {
    expect(decideOnClose(4001, 'the hub was reset', false).why).toContain(
      '(4001, the credential stopped working (token rotated, agent or user deleted, or hub reset): the hub was reset)',
    );
  });
});

describe('backoffDelay', () => {
  const opts = { initialMs: 500, maxMs: 30_000 };
  it.each([
    [0, 1, 500],
    [1, 1, 1000],
    [3, 1, 4000],
    [10, 1, 30_000],
    [50, 1, 30_000],
    [3, 0.25, 1000],
    [3, 0, 0],
  ])('attempt %i with random %f waits %i ms', (attempt, random, expected) => {
    expect(backoffDelay(attempt, opts, () => random)).toBe(expected);
  });
  it('never waits less than the floor', () => {
    expect(backoffDelay(0, { ...opts, floorMs: 100 }, () => 0)).toBe(100);
  });

  it('by default doubles from 0.5 s to a cap of 5 s, each wait a random part of that', () => {
    const options = { initialMs: DEFAULT_RECONNECT.initialDelayMs, maxMs: DEFAULT_RECONNECT.maxDelayMs };
    // The longest waits (random 1): a hub back after a long outage has every agent back within 5 s.
    expect([0, 1, 2, 3, 4, 5, 10, 50].map((n) => backoffDelay(n, options, () => 1))).toEqual([500, 1000, 2000, 4000, 5000, 5000, 5000, 5000]);
    // Jitter spreads a restarted hub's agents over the whole window instead of all at once.
    expect([0, 0.25, 0.5, 0.99].map((r) => backoffDelay(20, options, () => r))).toEqual([0, 1250, 2500, 4950]);
  });
});

/** The delayed events XState sends itself when a state's `after` delay passes (pure transitions take them as events). */
const OPEN_TIMEOUT = { type: 'xstate.after.openTimeout.hubClient.connecting' };
const PROBE_TIMEOUT = { type: 'xstate.after.openTimeout.hubClient.probing' };

describe('client connection machine: transitions', () => {
  const machine = clientConnectionMachine;
  const initial = () => initialTransition(machine, { reconnect, refreshable: false, random: () => 0.5 })[0];
  const after = (snapshot: SnapshotFrom<typeof machine>, ...events: ConnectionEvent[]) => events.reduce((s, e) => transition(machine, s, e)[0], snapshot);
  const effectsOf = (actions: Array<{ type: string }>) => actions.map((a) => a.type).filter((t) => !t.startsWith('xstate.'));

  it.each<[string, ConnectionEvent[], ConnectionEvent, string, string[]]>([
    ['idle', [], { type: 'CONNECT' }, 'connecting', ['openSocket']],
    ['idle', [], { type: 'CLOSE' }, 'stopped', ['stopped']],
    ['connecting', [{ type: 'CONNECT' }], { type: 'OPENED' }, 'open', ['opened']],
    ['connecting (never opened)', [{ type: 'CONNECT' }], { type: 'CLOSED', code: 1006, reason: '' }, 'probing', []],
    ['connecting', [{ type: 'CONNECT' }], { type: 'CLOSE' }, 'closing', ['closeSocket']],
    ['open', [{ type: 'CONNECT' }, { type: 'OPENED' }], { type: 'CLOSED', code: 1001, reason: '' }, 'waiting', []],
    ['open', [{ type: 'CONNECT' }, { type: 'OPENED' }], { type: 'CLOSED', code: 4011, reason: '' }, 'waiting', []],
    ['open', [{ type: 'CONNECT' }, { type: 'OPENED' }], { type: 'CLOSED', code: 4001, reason: '' }, 'stopped', ['stopped']],
    ['open', [{ type: 'CONNECT' }, { type: 'OPENED' }], { type: 'CLOSED', code: 4003, reason: '' }, 'stopped', ['stopped']],
    ['open', [{ type: 'CONNECT' }, { type: 'OPENED' }], { type: 'CLOSE' }, 'closing', ['closeSocket']],
    ['closing', [{ type: 'CONNECT' }, { type: 'OPENED' }, { type: 'CLOSE' }], { type: 'CLOSED', code: 1000, reason: '' }, 'stopped', ['stopped']],
    ['waiting', [{ type: 'CONNECT' }, { type: 'OPENED' }, { type: 'CLOSED', code: 1006, reason: '' }], { type: 'CLOSE' }, 'stopped', ['stopped']],
    // An opening handshake that hangs is given up, its socket dropped, and retried after the backoff.
    ['connecting (hung)', [{ type: 'CONNECT' }], OPEN_TIMEOUT as never, 'waiting', ['abandonSocket']],
    // A probe that hangs too.
    ['probing (hung)', [{ type: 'CONNECT' }, { type: 'CLOSED', code: 1006, reason: '' }], PROBE_TIMEOUT as never, 'waiting', []],
  ])('%s + %j → %s with effects %j', (_from, before, event, expected, effects) => {
    const [next, actions] = transition(machine, after(initial(), ...before), event);
    expect(next.value).toBe(expected);
    expect(effectsOf(actions)).toEqual(effects);
  });

  it('counts failed attempts and explains the wait', () => {
    const s = after(initial(), { type: 'CONNECT' }, { type: 'OPENED' }, { type: 'CLOSED', code: 1001, reason: '' });
    expect(s.context.attempt).toBe(1);
    expect(s.context.status).toMatch(/^closed by the hub \(1001, the hub is shutting down\); reconnecting in \d+\.\d s$/);
  });

  it('stops instead of waiting when reconnect is off', () => {
    const [s0] = initialTransition(machine, { reconnect: false, refreshable: false });
    const s = after(s0, { type: 'CONNECT' }, { type: 'OPENED' }, { type: 'CLOSED', code: 1001, reason: '' });
    expect(s.value).toBe('stopped');
    expect(s.context.stopReason).toBe('closed by the hub (1001, the hub is shutting down); stopping: reconnect is off');
  });

  it('explains a hung handshake and a hung probe, and stops on one when reconnect is off', () => {
    const connecting = after(initial(), { type: 'CONNECT' });
    const timedOut = transition(machine, connecting, OPEN_TIMEOUT as never)[0];
    expect(timedOut.context).toMatchObject({ attempt: 1, status: 'the WebSocket did not open within 10.0 s; retrying in 0.5 s' });
    const probing = after(connecting, { type: 'CLOSED', code: 1006, reason: '' });
    expect(transition(machine, probing, PROBE_TIMEOUT as never)[0].context.status).toBe(
      'the WebSocket did not open and the hub did not answer within 10.0 s; retrying in 0.5 s',
    );
    const [once] = initialTransition(machine, { reconnect: false, refreshable: false, openTimeoutMs: 3000 });
    const [stopped, actions] = transition(machine, after(once, { type: 'CONNECT' }), OPEN_TIMEOUT as never);
    expect(stopped.value).toBe('stopped');
    expect(stopped.context.stopReason).toBe('the WebSocket did not open within 3.0 s');
    expect(effectsOf(actions)).toEqual(['stopped']);
  });

  it('keeps what answered a refused upgrade for the probe, and forgets it on the next attempt', () => {
    const answer = { status: 503, server: 'nginx' };
    const probing = after(initial(), { type: 'CONNECT' }, { type: 'CLOSED', code: 1006, reason: '', answer });
    expect(probing.value).toBe('probing');
    expect(probing.context.upgrade).toEqual(answer);
    // The probe's result moves it to waiting; the next connecting starts with no answer.
    const waiting = transition(machine, probing, { type: 'xstate.done.actor.0.hubClient.probing', output: { verdict: 'retry', message: 'x' } } as never)[0];
    expect(waiting.value).toBe('waiting');
    const again = transition(machine, waiting, { type: 'xstate.after.backoff.hubClient.waiting' } as never)[0];
    expect(again.value).toBe('connecting');
    expect(again.context.upgrade).toBeUndefined();
  });

  it('cannot open or connect again once stopped', () => {
    const s = after(initial(), { type: 'CLOSE' });
    expect(s.status).toBe('done');
    expect(s.can({ type: 'CONNECT' })).toBe(false);
  });
});

describe('client connection machine: behaviour', () => {
  beforeEach(() => void vi.useFakeTimers());
  afterEach(() => void vi.useRealTimers());

  it('waits the backoff, then opens a new socket; a stable connection resets the count', async () => {
    const { actor, effects } = start();
    actor.send({ type: 'CONNECT' });
    actor.send({ type: 'OPENED' });
    actor.send({ type: 'CLOSED', code: 1006, reason: '' });
    expect(actor.getSnapshot().value).toBe('waiting');
    // random 0.5 of initial 1000 ms at attempt 0
    await vi.advanceTimersByTimeAsync(499);
    expect(actor.getSnapshot().value).toBe('waiting');
    await vi.advanceTimersByTimeAsync(1);
    expect(actor.getSnapshot().value).toBe('connecting');
    actor.send({ type: 'OPENED' });
    expect(actor.getSnapshot().context.attempt).toBe(1);
    await vi.advanceTimersByTimeAsync(reconnect.stableAfterMs);
    expect(actor.getSnapshot().context.attempt).toBe(0);
    expect(effects).toEqual(['open', 'opened', 'open', 'opened']);
  });

  it('grows the wait with each failure to open', async () => {
    const { actor } = start();
    actor.send({ type: 'CONNECT' });
    const waits: number[] = [];
    for (let i = 0; i < 4; i++) {
      actor.send({ type: 'CLOSED', code: 1006, reason: '' });
      await vi.waitFor(() => expect(actor.getSnapshot().value).toBe('waiting'));
      waits.push(actor.getSnapshot().context.delayMs);
      await vi.advanceTimersByTimeAsync(actor.getSnapshot().context.delayMs);
      expect(actor.getSnapshot().value).toBe('connecting');
    }
    expect(waits).toEqual([500, 1000, 2000, 4000]);
  });

  it('stops with the probe’s line when the hub refuses the token', async () => {
    const { actor, effects } = start({ probe: { verdict: 'refused', message: 'the hub refused the token (invalid token)' } });
    actor.send({ type: 'CONNECT' });
    actor.send({ type: 'CLOSED', code: 1006, reason: '' });
    await vi.waitFor(() => expect(actor.getSnapshot().value).toBe('stopped'));
    expect(actor.getSnapshot().context).toMatchObject({
      status: 'the hub refused the token (invalid token); stopping',
      stopReason: 'the hub refused the token (invalid token)',
    });
    expect(effects).toEqual(['open', 'stopped']);
  });

  it('gives up a handshake that hangs after openTimeoutMs, drops its socket, and opens another after the backoff', async () => {
    const { actor, effects } = start({ openTimeoutMs: 2000 });
    actor.send({ type: 'CONNECT' });
    await vi.advanceTimersByTimeAsync(1999);
    expect(actor.getSnapshot().value).toBe('connecting');
    await vi.advanceTimersByTimeAsync(1);
    expect(actor.getSnapshot().value).toBe('waiting');
    expect(actor.getSnapshot().context.status).toBe('the WebSocket did not open within 2.0 s; retrying in 0.5 s');
    await vi.advanceTimersByTimeAsync(500);
    expect(actor.getSnapshot().value).toBe('connecting');
    actor.send({ type: 'OPENED' });
    expect(effects).toEqual(['open', 'abandon', 'open', 'opened']);
  });

  it('keeps retrying an unreachable hub, saying so', async () => {
    const { actor } = start({ probe: { verdict: 'unreachable', message: 'the hub at http://127.0.0.1:9 is unreachable (ECONNREFUSED)' } });
    actor.send({ type: 'CONNECT' });
    actor.send({ type: 'CLOSED', code: 1006, reason: '' });
    await vi.waitFor(() => expect(actor.getSnapshot().value).toBe('waiting'));
    expect(actor.getSnapshot().context.status).toBe('the hub at http://127.0.0.1:9 is unreachable (ECONNREFUSED); retrying in 0.5 s');
  });
});

describe('outbox', () => {
  const now = 1_000_000;
  it('writes in order, keeps tracked frames until confirmed, and resolves chunks once written', async () => {
    const box = new Outbox(10);
    const written: string[] = [];
    const write = (text: string) => (written.push(text), true);
    const a = box.add('a', 'A', true);
    const chunk = box.add('c', 'C', false);
    expect(box.flush(write, now)).toBe(2);
    await expect(chunk).resolves.toEqual({ local_id: 'c' });
    expect(box.size).toBe(1);
    expect(box.flush(write, now + 5)).toBe(0);
    expect(box.confirm('a', { local_id: 'a', id: 7 })).toBe(true);
    await expect(a).resolves.toEqual({ local_id: 'a', id: 7 });
    expect(written).toEqual(['A', 'C']);
  });

  it('sends unconfirmed frames again after a lost connection or the ack timeout, in order', () => {
    const box = new Outbox(10);
    const written: string[] = [];
    const write = (text: string) => (written.push(text), true);
    void box.add('1', 'one', true);
    void box.add('2', 'two', true);
    box.flush(write, now);
    box.flush(write, now + 999, 1000);
    expect(written).toEqual(['one', 'two']);
    box.flush(write, now + 1000, 1000);
    expect(written).toEqual(['one', 'two', 'one', 'two']);
    box.connectionLost();
    box.flush(write, now + 1001);
    expect(written.slice(4)).toEqual(['one', 'two']);
  });

  it('stops at a write the socket refuses and keeps the rest due', () => {
    const box = new Outbox(10);
    void box.add('1', 'one', true);
    void box.add('2', 'two', true);
    expect(box.flush((t) => t === 'one', now)).toBe(1);
    const later: string[] = [];
    box.flush((t) => (later.push(t), true), now);
    expect(later).toEqual(['two']);
  });

  it('refuses past its limit and fails everything when the client stops', async () => {
    const box = new Outbox(1);
    const first = box.add('1', 'one', true);
    await expect(box.add('2', 'two', true)).rejects.toBeInstanceOf(OutboxFullError);
    expect(box.refuse('nope', new Error('x'))).toBe(false);
    box.failAll(new Error('stopped'));
    await expect(first).rejects.toThrow('stopped');
    expect(box.size).toBe(0);
  });
});

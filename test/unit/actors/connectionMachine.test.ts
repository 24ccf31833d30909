// The connection actor from upgrade to close: the credential check's outcomes, bind/unbind in the
// router, resume replay, CLOSE / SOCKET_CLOSED, and JWT expiry under fake timers; fakes for every port.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createActor, fromPromise, initialTransition, transition, waitFor, type Actor } from 'xstate';
import {
  connectionMachine,
  type ConnectionOutlet,
  type RouterRef,
  type Session,
  type UpgradePort,
  type ConnectionMeters,
} from '../../../src/actors/connection.js';
import { SessionTimers } from '../../../src/actors/sessionExpiry.js';
import { TokenBucket } from '../../../src/ws/tokenBucket.js';
import type { RouterEvent } from '../../../src/actors/router.js';
import { type HubError } from '../../../src/errors.js';
import type { Principal } from '../../../src/delivery/types.js';
import { CloseCode } from '../../../src/protocol/errors.js';

const agent: Principal = { id: 10, username: 'weather-bot', role: 'AGENT' };
const member: Principal = { id: 3, username: 'mia', role: 'MEMBER' };
const START = 1_700_000_000_000;

// ---- fakes -------------------------------------------------------------------------------------

interface Deferred<T> {
  promise: Promise<T>;
  resolve(value: T): void;
  reject(err: unknown): void;
}

function deferred<T>(): Deferred<T> {
  let resolve!: (value: T) => void;
  let reject!: (err: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

class FakeUpgrade implements UpgradePort {
  readonly accepted: Session[] = [];
  readonly refused: Array<{ status: number; message: string }> = [];
  accept(session: Session): void {
    this.accepted.push(session);
  }
  refuse(error: HubError): void {
    this.refused.push({ status: error.status, message: error.message });
  }
}

class FakeRouter implements RouterRef {
  readonly events: RouterEvent[] = [];
  send(event: RouterEvent): void {
    this.events.push(event);
  }
  get types(): string[] {
    return this.events.map((e) => e.type);
  }
}

/** The edge checks these per frame; the actor only holds them for inspection. */
const METERS: ConnectionMeters = {
  rate: new TokenBucket(10, 10),
  badFrames: new TokenBucket(1, 20),
  rateStrikes: new TokenBucket(1, 20),
};

class FakeOutlet implements ConnectionOutlet {
  readonly key = 77;
  closed = false;
  congested = false;
  readonly sent: string[] = [];
  readonly replayEnds: number[] = [];
  readonly ends: Array<{ code: number; reason: string }> = [];
  constructor(readonly user: Principal) {}
  deliver(text: string): void {
    this.sent.push(text);
  }
  close(code: number, reason: string): void {
    this.end(code, reason);
  }
  send(text: string): boolean {
    this.sent.push(text);
    return !this.closed;
  }
  whenWritable(): Promise<void> {
    return Promise.resolve();
  }
  endReplay(lastReplayedId: number): void {
    this.replayEnds.push(lastReplayedId);
  }
  end(code: number, reason: string): void {
    this.ends.push({ code, reason });
  }
}

/** A clock the test moves; `advance` moves it together with the fake timers. */
function manualClock(start = START) {
  let t = start;
  return {
    now: () => t,
    set: (value: number) => {
      t = value;
    },
    advance(ms: number) {
      t += ms;
      vi.advanceTimersByTime(ms);
    },
  };
}

interface Harness {
  actor: Actor<typeof connectionMachine>;
  upgrade: FakeUpgrade;
  router: FakeRouter;
  replayCalls: Array<{ user: Principal; since: number; outlet: ConnectionOutlet }>;
}

interface HarnessOptions {
  /** Sent as AUTHENTICATED right after the start; without it the actor waits in `authenticating`. */
  auth?: Session;
  replay?: Deferred<number>;
  since?: number;
  now?: () => number;
  expiry?: SessionTimers;
}

function start(options: HarnessOptions = {}): Harness {
  const expiry = options.expiry ?? new SessionTimers();
  const upgrade = new FakeUpgrade();
  const router = new FakeRouter();
  const replayCalls: Harness['replayCalls'] = [];
  const machine = connectionMachine.provide({
    actors: {
      replay: fromPromise<number, { user: Principal; since: number; outlet: ConnectionOutlet }>(async ({ input }) => {
        replayCalls.push(input);
        if (!options.replay) throw new Error('no replay expected');
        return options.replay.promise;
      }),
    },
  });
  const actor = createActor(machine, {
    input: { key: 77, meters: METERS, since: options.since, upgrade, router, expiry, now: options.now ?? (() => START) },
  }).start();
  if (options.auth) actor.send({ type: 'AUTHENTICATED', session: options.auth });
  return { actor, upgrade, router, replayCalls };
}

const inState = (h: Harness, state: string) => waitFor(h.actor, (s) => s.matches(state as never), { timeout: 1000 });

/** Authenticated, upgraded and opened: the actor is in `open`. */
async function open(options: HarnessOptions & { user?: Principal } = {}): Promise<Harness & { outlet: FakeOutlet }> {
  const user = options.user ?? agent;
  const h = start({ auth: { user }, ...options });
  await inState(h, 'upgrading');
  const outlet = new FakeOutlet(user);
  h.actor.send({ type: 'OPENED', outlet });
  return { ...h, outlet };
}

const flushMicrotasks = async () => {
  for (let i = 0; i < 10; i++) await Promise.resolve();
};

afterEach(() => {
  vi.useRealTimers();
});

// ---- authentication and upgrade ----------------------------------------------------------------

describe('connection: authenticating → upgrading → open', () => {
  it('accepts the upgrade with the session once the credential is valid', () => {
    const expiresAt = START + 3_600_000;
    const h = start();
    expect(h.actor.getSnapshot().value).toBe('authenticating');
    expect(h.upgrade.accepted).toEqual([]);
    h.actor.send({ type: 'AUTHENTICATED', session: { user: member, expiresAt } });
    expect(h.actor.getSnapshot().value).toBe('upgrading');
    expect(h.actor.getSnapshot().context).toMatchObject({ user: member, expiresAt });
    expect(h.upgrade.accepted).toEqual([{ user: member, expiresAt }]);
    expect(h.upgrade.refused).toEqual([]);
    expect(h.router.events).toEqual([]);
    h.actor.stop();
  });

  it('maps each outcome of the credential check to one state and one answer (pure transitions)', () => {
    const input = { key: 77, meters: METERS, upgrade: new FakeUpgrade(), router: new FakeRouter(), expiry: new SessionTimers(), now: () => START };
    const [authenticating] = initialTransition(connectionMachine, input);
    const named = (actions: Array<{ type: string }>) => actions.map((a) => a.type).filter((t) => !t.startsWith('xstate.'));
    const table = [
      { event: { type: 'AUTHENTICATED', session: { user: agent } }, state: 'upgrading', actions: ['acceptUpgrade'] },
      { event: { type: 'UNAUTHENTICATED' }, state: 'refused', actions: ['refuseUpgrade'] },
      { event: { type: 'AUTH_FAILED' }, state: 'refused', actions: ['failUpgrade'] },
      { event: { type: 'ABORTED' }, state: 'refused', actions: [] },
    ] as const;
    for (const row of table) {
      const [next, actions] = transition(connectionMachine, authenticating, row.event);
      expect({ event: row.event.type, state: next.value, actions: named(actions) }).toEqual({ event: row.event.type, state: row.state, actions: row.actions });
    }
    // Nothing else moves it: a socket cannot open, nor be closed, before its credential is checked.
    for (const event of [
      { type: 'OPENED', outlet: new FakeOutlet(agent) },
      { type: 'CLOSE', code: 1000, reason: '' },
      { type: 'SOCKET_CLOSED', code: 1006 },
    ] as const) {
      expect(transition(connectionMachine, authenticating, event)[0].value).toBe('authenticating');
    }
  });

  it('holds who and until when, never a credential (snapshots go to the admin inspection)', () => {
    const h = start({ auth: { user: member, expiresAt: START + 60_000 } });
    const { context } = h.actor.getSnapshot();
    expect(
      Object.keys(context)
        .filter((k) => context[k as keyof typeof context] !== undefined)
        .sort(),
    ).toEqual(['expiresAt', 'expiry', 'key', 'meters', 'now', 'router', 'upgrade', 'user']);
    h.actor.stop();
  });

  it('binds the outlet in the router on OPENED and goes live without resume', async () => {
    const h = await open();
    const snapshot = h.actor.getSnapshot();
    expect(snapshot.value).toEqual({ open: 'live' });
    expect(snapshot.context.outlet).toBe(h.outlet);
    expect(h.router.events).toEqual([{ type: 'BIND', endpoint: h.outlet }]);
    expect(h.replayCalls).toEqual([]);
    h.actor.stop();
  });

  it('does not accept a second OPENED while open', async () => {
    const h = await open();
    const snapshot = h.actor.getSnapshot();
    expect(snapshot.can({ type: 'OPENED', outlet: new FakeOutlet(agent) })).toBe(false);
    expect(snapshot.can({ type: 'ABORTED' })).toBe(false);
    expect(snapshot.can({ type: 'CLOSE', code: CloseCode.normal, reason: '' })).toBe(true);
    h.actor.send({ type: 'OPENED', outlet: new FakeOutlet(agent) });
    expect(h.actor.getSnapshot().context.outlet).toBe(h.outlet);
    expect(h.router.types).toEqual(['BIND']);
    h.actor.stop();
  });

  it("refuses an invalid credential with 401 'invalid token'", () => {
    const h = start();
    h.actor.send({ type: 'UNAUTHENTICATED' });
    const snapshot = h.actor.getSnapshot();
    expect(snapshot.value).toBe('refused');
    expect(snapshot.status).toBe('done');
    expect(h.upgrade.refused).toEqual([{ status: 401, message: 'invalid token' }]);
    expect(h.upgrade.accepted).toEqual([]);
    expect(h.router.events).toEqual([]);
  });

  it('refuses with 503 when the credential cannot be checked', () => {
    const h = start();
    h.actor.send({ type: 'AUTH_FAILED' });
    expect(h.actor.getSnapshot().value).toBe('refused');
    expect(h.upgrade.refused).toEqual([{ status: 503, message: 'the hub could not check the credential; try again' }]);
    expect(h.upgrade.accepted).toEqual([]);
  });

  it('ends refused, never accepting, when the request is aborted during authentication', () => {
    const h = start();
    h.actor.send({ type: 'ABORTED' });
    expect(h.actor.getSnapshot().value).toBe('refused');
    expect(h.actor.getSnapshot().status).toBe('done');
    expect(h.upgrade.accepted).toEqual([]);
    // The request is gone: there is no one to answer.
    expect(h.upgrade.refused).toEqual([]);
    expect(h.router.events).toEqual([]);
  });

  it('ends refused and never binds when the request is aborted during the upgrade', async () => {
    const h = start({ auth: { user: agent } });
    await inState(h, 'upgrading');
    h.actor.send({ type: 'ABORTED' });
    expect(h.actor.getSnapshot().value).toBe('refused');
    // Final: a late OPENED can no longer bind anything.
    expect(h.actor.getSnapshot().status).toBe('done');
    // accept() was the step that began the upgrade; nothing further happens after the abort.
    expect(h.upgrade.accepted).toHaveLength(1);
    expect(h.upgrade.refused).toEqual([]);
    expect(h.router.events).toEqual([]);
  });
});

// ---- resume ------------------------------------------------------------------------------------

describe('connection: resume replay', () => {
  it('replays from since, then ends the replay with the last id and goes live', async () => {
    const replay = deferred<number>();
    const h = await open({ since: 40, replay });
    expect(h.actor.getSnapshot().value).toEqual({ open: 'replaying' });
    expect(h.router.types).toEqual(['BIND']);
    await flushMicrotasks();
    expect(h.replayCalls).toEqual([{ user: agent, since: 40, outlet: h.outlet }]);
    expect(h.outlet.replayEnds).toEqual([]);

    replay.resolve(57);
    await inState(h, 'open.live');
    expect(h.outlet.replayEnds).toEqual([57]);
    expect(h.actor.getSnapshot().context.replayedUpTo).toBe(57);
    h.actor.stop();
  });

  it('resumes from since 0 too (the guard checks presence, not truthiness)', async () => {
    const replay = deferred<number>();
    const h = await open({ since: 0, replay });
    expect(h.actor.getSnapshot().value).toEqual({ open: 'replaying' });
    replay.resolve(0);
    await inState(h, 'open.live');
    expect(h.outlet.replayEnds).toEqual([0]);
    h.actor.stop();
  });

  it('closes with 1011 when the replay fails, and unbinds', async () => {
    const replay = deferred<number>();
    const h = await open({ since: 40, replay });
    replay.reject(new Error('store unavailable'));
    await inState(h, 'closing');
    expect(h.outlet.ends).toHaveLength(1);
    expect(h.outlet.ends[0]!.code).toBe(CloseCode.internal);
    expect(h.outlet.replayEnds).toEqual([]);
    expect(h.router.events).toEqual([
      { type: 'BIND', endpoint: h.outlet },
      { type: 'UNBIND', endpoint: h.outlet },
    ]);
    h.actor.send({ type: 'SOCKET_CLOSED', code: CloseCode.internal });
    expect(h.actor.getSnapshot().status).toBe('done');
  });
});

// ---- closing -----------------------------------------------------------------------------------

describe('connection: closing', () => {
  it('CLOSE ends the socket with that code and reason, unbinds, and SOCKET_CLOSED finishes it', async () => {
    const h = await open();
    h.actor.send({ type: 'CLOSE', code: CloseCode.unauthorized, reason: 'token rotated' });
    let snapshot = h.actor.getSnapshot();
    expect(snapshot.value).toBe('closing');
    expect(snapshot.context).toMatchObject({ closeCode: CloseCode.unauthorized, closeReason: 'token rotated' });
    expect(h.outlet.ends).toEqual([{ code: CloseCode.unauthorized, reason: 'token rotated' }]);
    expect(h.router.events).toEqual([
      { type: 'BIND', endpoint: h.outlet },
      { type: 'UNBIND', endpoint: h.outlet },
    ]);

    h.actor.send({ type: 'SOCKET_CLOSED', code: CloseCode.unauthorized });
    snapshot = h.actor.getSnapshot();
    expect(snapshot.value).toBe('closed');
    expect(snapshot.status).toBe('done');
    expect(h.router.types).toEqual(['BIND', 'UNBIND']);
    expect(h.outlet.ends).toHaveLength(1);
  });

  it('a second CLOSE while closing is not accepted', async () => {
    const h = await open();
    h.actor.send({ type: 'CLOSE', code: CloseCode.slowConsumer, reason: 'slow' });
    expect(h.actor.getSnapshot().can({ type: 'CLOSE', code: CloseCode.normal, reason: '' })).toBe(false);
    h.actor.send({ type: 'CLOSE', code: CloseCode.normal, reason: '' });
    expect(h.outlet.ends).toEqual([{ code: CloseCode.slowConsumer, reason: 'slow' }]);
    h.actor.stop();
  });

  it('SOCKET_CLOSED while open goes straight to closed, unbinding without ending the socket again', async () => {
    const h = await open();
    h.actor.send({ type: 'SOCKET_CLOSED', code: 1006 });
    const snapshot = h.actor.getSnapshot();
    expect(snapshot.value).toBe('closed');
    expect(snapshot.status).toBe('done');
    expect(snapshot.context.closeCode).toBe(1006);
    expect(h.router.events).toEqual([
      { type: 'BIND', endpoint: h.outlet },
      { type: 'UNBIND', endpoint: h.outlet },
    ]);
    expect(h.outlet.ends).toEqual([]);
  });

  it('SOCKET_CLOSED during the replay stops it and unbinds', async () => {
    const replay = deferred<number>();
    const h = await open({ since: 1, replay });
    h.actor.send({ type: 'SOCKET_CLOSED', code: 1006 });
    expect(h.actor.getSnapshot().value).toBe('closed');
    replay.resolve(9);
    await flushMicrotasks();
    expect(h.outlet.replayEnds).toEqual([]);
    expect(h.router.types).toEqual(['BIND', 'UNBIND']);
  });
});

// ---- session expiry ----------------------------------------------------------------------------

describe('connection: session expiry (fake timers)', () => {
  it('closes with 4002 when the JWT expires, and not a moment before', async () => {
    vi.useFakeTimers();
    const clock = manualClock();
    const h = await open({ user: member, auth: { user: member, expiresAt: START + 60_000 }, now: clock.now });
    expect(h.actor.getSnapshot().value).toEqual({ open: 'live' });

    clock.advance(59_999);
    expect(h.actor.getSnapshot().value).toEqual({ open: 'live' });
    expect(h.outlet.ends).toEqual([]);

    clock.advance(1);
    expect(h.actor.getSnapshot().value).toBe('closing');
    expect(h.outlet.ends).toHaveLength(1);
    expect(h.outlet.ends[0]!.code).toBe(CloseCode.tokenExpired);
    expect(h.router.types).toEqual(['BIND', 'UNBIND']);
    h.actor.stop();
  });

  it('times the expiry from when the socket opened, not from when the actor started', async () => {
    vi.useFakeTimers();
    const clock = manualClock();
    const h = start({ now: clock.now });
    clock.advance(20_000);
    h.actor.send({ type: 'AUTHENTICATED', session: { user: member, expiresAt: START + 60_000 } });
    expect(h.actor.getSnapshot().value).toBe('upgrading');
    clock.advance(10_000);
    const outlet = new FakeOutlet(member);
    h.actor.send({ type: 'OPENED', outlet });
    clock.advance(29_999);
    expect(outlet.ends).toEqual([]);
    clock.advance(1);
    expect(outlet.ends.map((e) => e.code)).toEqual([CloseCode.tokenExpired]);
    h.actor.stop();
  });

  it('closes at once when the session has already expired on opening', async () => {
    vi.useFakeTimers();
    const clock = manualClock();
    const h = await open({ user: member, auth: { user: member, expiresAt: START - 1 }, now: clock.now });
    clock.advance(0);
    expect(h.actor.getSnapshot().value).toBe('closing');
    expect(h.outlet.ends.map((e) => e.code)).toEqual([CloseCode.tokenExpired]);
    h.actor.stop();
  });

  it('does not close an agent session (no expiresAt) after a day', async () => {
    vi.useFakeTimers();
    const clock = manualClock();
    const h = await open({ now: clock.now });
    clock.advance(24 * 60 * 60 * 1000);
    expect(h.actor.getSnapshot().value).toEqual({ open: 'live' });
    expect(h.outlet.ends).toEqual([]);
    h.actor.stop();
  });

  it("keeps the timer out of XState's scheduler, whose table every stopping actor of the shared system scans", async () => {
    vi.useFakeTimers();
    const expiry = new SessionTimers();
    const h = await open({ user: member, auth: { user: member, expiresAt: START + 60_000 }, expiry });
    expect(expiry.size).toBe(1);
    expect(Object.keys(h.actor.system.getSnapshot()._scheduledEvents)).toEqual([]);
    h.actor.send({ type: 'CLOSE', code: CloseCode.normal, reason: 'bye' });
    expect(expiry.size).toBe(0);
    h.actor.stop();
  });

  it('cancels the expiry timer once the connection closed', async () => {
    vi.useFakeTimers();
    const clock = manualClock();
    const h = await open({ user: member, auth: { user: member, expiresAt: START + 60_000 }, now: clock.now });
    h.actor.send({ type: 'SOCKET_CLOSED', code: CloseCode.normal });
    clock.advance(120_000);
    expect(h.outlet.ends).toEqual([]);
    expect(h.router.types).toEqual(['BIND', 'UNBIND']);
    expect(vi.getTimerCount()).toBe(0);
  });

  // The timer measures the lifetime on a monotonic clock from the open; when it fires the session
  // ends, even if the injected wall clock (stepped back by NTP, say) still reads a moment before.
  it('still closes an expired session when the expiry timer fired a moment early by the injected clock', async () => {
    vi.useFakeTimers();
    const clock = manualClock();
    const h = await open({ user: member, auth: { user: member, expiresAt: START + 60_000 }, now: clock.now });
    // The timer fires after 60 s while the clock reads 1 ms short of the expiry.
    clock.set(START - 1);
    clock.advance(60_000);
    // Long after the expiry the session must be closed.
    clock.advance(60 * 60 * 1000);
    expect(h.outlet.ends.map((e) => e.code)).toEqual([CloseCode.tokenExpired]);
  });
});

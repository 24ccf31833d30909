// The router actor, its address table and the routing rules (wire.md §5): behaviour with recording
// fake endpoints and presence, bind/unbind races, shutdown, pure transitions, and audienceOf/reaches as a table.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createActor, initialTransition, transition, type Actor } from 'xstate';
import { audienceOf, reaches } from '../../../src/delivery/audience.js';
import { routerMachine, type RouterEvent } from '../../../src/actors/router.js';
import type { Role } from '../../../src/protocol/roles.js';
import type { Delivery, Endpoint, PresencePort, Principal, Routable } from '../../../src/delivery/types.js';
import { CloseCode } from '../../../src/protocol/errors.js';
import type { MessageFrame } from '../../../src/protocol/frames.js';
import { nextEndpointKey, RecordingEndpoint } from '../../helpers/recordingEndpoint.js';

// ---- fakes -------------------------------------------------------------------------------------

/** Makes each delivery's text unique. */
let serial = 1;

class FakePresence implements PresencePort {
  readonly events: string[] = [];
  /** The endpoint key each online came with. */
  readonly onlineKeys: number[] = [];
  online(user: Principal, key: number): void {
    this.events.push(`online:${user.id}`);
    this.onlineKeys.push(key);
  }
  offline(user: Principal): void {
    this.events.push(`offline:${user.id}`);
  }
}

// The cast: ids and roles as the hub has them (admin 1, Butler 2).
const users = {
  admin: { id: 1, username: 'admin', role: 'ADMIN' },
  butler: { id: 2, username: 'Butler', role: 'BUTLER' },
  member: { id: 3, username: 'mia', role: 'MEMBER' },
  member2: { id: 4, username: 'noa', role: 'MEMBER' },
  agent: { id: 10, username: 'weather-bot', role: 'AGENT' },
  agent2: { id: 11, username: 'review-bot', role: 'AGENT' },
} as const satisfies Record<string, Principal>;
type Name = keyof typeof users;
const names = Object.keys(users) as Name[];

type RouterActor = Actor<typeof routerMachine>;

function startRouter(presence: PresencePort = new FakePresence()): RouterActor {
  return createActor(routerMachine, { input: { presence } }).start();
}

function bind(router: RouterActor, user: Principal): RecordingEndpoint {
  const endpoint = new RecordingEndpoint(user);
  router.send({ type: 'BIND', endpoint });
  return endpoint;
}

/** One endpoint per member of the cast. */
function bindCast(router: RouterActor): Record<Name, RecordingEndpoint> {
  return Object.fromEntries(names.map((n) => [n, bind(router, users[n])])) as Record<Name, RecordingEndpoint>;
}

function routable(type: string, sender: Name, target: Name | null): Routable {
  return {
    type,
    sender_id: users[sender].id,
    sender_role: users[sender].role,
    target_id: target === null ? null : users[target].id,
    target_role: target === null ? null : users[target].role,
  };
}

function delivery(type: string, sender: Name, target: Name | null, extra: Partial<Delivery> = {}): Delivery {
  const m = routable(type, sender, target);
  return {
    type,
    text: JSON.stringify({ type, sender_id: m.sender_id, target_id: m.target_id, n: serial++ }),
    audience: audienceOf(m),
    senderId: m.sender_id,
    ...extra,
  };
}

function deliver(router: RouterActor, ...deliveries: Delivery[]): void {
  router.send({ type: 'DELIVER', deliveries });
}

function whoGot(endpoints: Record<Name, RecordingEndpoint>, text: string): Name[] {
  return names.filter((n) => endpoints[n].texts.includes(text));
}

const summary = (router: RouterActor) => router.getSnapshot().context.table.summary();

// ---- routing -----------------------------------------------------------------------------------

describe('router: routing rules', () => {
  let router: RouterActor;
  beforeEach(() => {
    router = startRouter();
  });
  afterEach(() => {
    router.stop();
  });

  it('delivers a targeted frame to every endpoint of the target (a second tab does not steal delivery)', () => {
    const tab1 = bind(router, users.member);
    const tab2 = bind(router, users.member);
    const other = bind(router, users.member2);
    const d = delivery('CHAT', 'agent', 'member', { id: 42 });
    deliver(router, d);
    expect(tab1.received).toEqual([{ text: d.text, id: 42 }]);
    expect(tab2.received).toEqual([{ text: d.text, id: 42 }]);
    expect(other.received).toEqual([]);
    expect(summary(router).multiSocketUsers).toEqual({ [users.member.id]: 2 });
  });

  it("echoes a human's targeted chat to every one of the human's own endpoints", () => {
    const agent = bind(router, users.agent);
    const tab1 = bind(router, users.member);
    const tab2 = bind(router, users.member);
    const bystander = bind(router, users.admin);
    const d = delivery('CHAT', 'member', 'agent', { id: 7 });
    deliver(router, d);
    expect(agent.texts).toEqual([d.text]);
    expect(tab1.texts).toEqual([d.text]);
    expect(tab2.texts).toEqual([d.text]);
    expect(bystander.texts).toEqual([]);
  });

  it('delivers a human chat to itself once per endpoint, not twice', () => {
    const tab = bind(router, users.member);
    const d = delivery('CHAT', 'member', 'member');
    deliver(router, d);
    expect(tab.texts).toEqual([d.text]);
  });

  it.each([
    ['AGENT', 'agent'],
    ['BUTLER', 'butler'],
  ] as const)('does not echo a targeted chat to its %s sender', (_role, sender) => {
    const own = bind(router, users[sender]);
    const target = bind(router, users.member);
    const d = delivery('CHAT', sender, 'member');
    deliver(router, d);
    expect(target.texts).toEqual([d.text]);
    expect(own.texts).toEqual([]);
  });

  it('does not echo targeted telemetry to a human sender (echo is for chat only)', () => {
    const own = bind(router, users.member);
    const target = bind(router, users.agent);
    const d = delivery('SYSTEM_LOG', 'member', 'agent');
    deliver(router, d);
    expect(target.texts).toEqual([d.text]);
    expect(own.texts).toEqual([]);
  });

  it('broadcasts untargeted chat from a human to everyone, the sender included', () => {
    const cast = bindCast(router);
    const d = delivery('CHAT', 'member', null);
    deliver(router, d);
    expect(whoGot(cast, d.text)).toEqual(names);
  });

  it.each([
    ['CHAT', 'agent'],
    ['CHAT_STREAM', 'agent'],
    ['CHAT_STREAM_END', 'agent'],
    ['CHAT', 'butler'],
    ['CHAT_STREAM', 'butler'],
    ['CHAT_STREAM_END', 'butler'],
  ] as const)('broadcasts untargeted %s from %s to everyone except the sender', (type, sender) => {
    const cast = bindCast(router);
    const d = delivery(type, sender, null);
    deliver(router, d);
    expect(whoGot(cast, d.text)).toEqual(names.filter((n) => n !== sender));
  });

  it.each(['SYSTEM_LOG', 'WEATHER_UPDATE', 'CODE_REVIEW', 'SECURITY_ALERT'])('sends untargeted %s to human endpoints only', (type) => {
    const cast = bindCast(router);
    const secondAdminTab = bind(router, users.admin);
    const d = delivery(type, 'agent', null);
    deliver(router, d);
    expect(whoGot(cast, d.text)).toEqual(['admin', 'member', 'member2']);
    expect(secondAdminTab.texts).toEqual([d.text]);
  });

  it.each([
    ['butler', 'agent'],
    ['agent', 'butler'],
  ] as const)('sends the monitor copy of a CHAT from %s to %s to admin endpoints only', (sender, target) => {
    const cast = bindCast(router);
    const adminTab2 = bind(router, users.admin);
    const d = delivery('CHAT', sender, target, { id: 99, monitorText: '{"type":"BUTLER_AGENT_MESSAGE"}' });
    expect(d.audience.monitor).toBe(true);
    deliver(router, d);
    expect(whoGot(cast, d.text)).toEqual([target]);
    expect(whoGot(cast, d.monitorText!)).toEqual(['admin']);
    expect(adminTab2.received).toEqual([{ text: d.monitorText, id: 99 }]);
  });

  it.each([
    ['CHAT_STREAM', 'butler', 'agent'],
    ['CHAT', 'member', 'agent'],
    ['CHAT', 'agent', 'agent2'],
    ['SYSTEM_LOG', 'agent', 'butler'],
  ] as const)('sends no monitor copy for %s from %s to %s, even when a monitor text is given', (type, sender, target) => {
    const cast = bindCast(router);
    const d = delivery(type, sender, target, { monitorText: 'MONITOR' });
    deliver(router, d);
    expect(whoGot(cast, 'MONITOR')).toEqual([]);
  });

  it('hands the one serialised string to every recipient and never serialises again', () => {
    const cast = bindCast(router);
    const extraTabs = [bind(router, users.member), bind(router, users.agent)];
    const d = delivery('CHAT', 'member', null, { id: 5 });
    const stringify = vi.spyOn(JSON, 'stringify');
    try {
      deliver(router, d);
      expect(stringify).not.toHaveBeenCalled();
    } finally {
      stringify.mockRestore();
    }
    const all = [...Object.values(cast), ...extraTabs];
    for (const e of all) {
      expect(e.received).toHaveLength(1);
      expect(e.received[0]!.text).toBe(d.text);
    }
    expect(router.getSnapshot().context.delivered).toBe(all.length);
  });

  it('applies every delivery of one DELIVER batch in order', () => {
    const tab = bind(router, users.member);
    const batch = [
      delivery('CHAT', 'agent', 'member', { id: 1 }),
      delivery('SYSTEM_LOG', 'agent', null, { id: 2 }),
      delivery('CHAT', 'butler', null, { id: 3 }),
    ];
    deliver(router, ...batch);
    expect(tab.received).toEqual(batch.map((d) => ({ text: d.text, id: d.id })));
  });

  it('delivers nothing to a target with no endpoint', () => {
    const tab = bind(router, users.member);
    deliver(router, delivery('CHAT', 'butler', 'agent'));
    expect(tab.received).toEqual([]);
    expect(router.getSnapshot().context.delivered).toBe(0);
  });
});

// ---- bind / unbind / presence ------------------------------------------------------------------

describe('router: address table and presence', () => {
  let presence: FakePresence;
  let router: RouterActor;
  beforeEach(() => {
    presence = new FakePresence();
    router = startRouter(presence);
  });
  afterEach(() => {
    router.stop();
  });

  it('reports an agent online on its first endpoint only and offline when its last one unbinds', () => {
    const a1 = bind(router, users.agent);
    const a2 = bind(router, users.agent);
    expect(presence.events).toEqual(['online:10']);
    expect(presence.onlineKeys).toEqual([a1.key]);
    router.send({ type: 'UNBIND', endpoint: a1 });
    expect(presence.events).toEqual(['online:10']);
    router.send({ type: 'UNBIND', endpoint: a2 });
    expect(presence.events).toEqual(['online:10', 'offline:10']);
    expect(summary(router)).toMatchObject({ endpoints: 0, users: 0 });
  });

  it.each(['admin', 'member', 'butler'] as const)('never reports presence for %s', (name) => {
    const e1 = bind(router, users[name]);
    const e2 = bind(router, users[name]);
    router.send({ type: 'UNBIND', endpoint: e1 });
    router.send({ type: 'UNBIND', endpoint: e2 });
    expect(presence.events).toEqual([]);
  });

  it('counts endpoints, users, humans, admins and roles', () => {
    bindCast(router);
    bind(router, users.admin);
    expect(summary(router)).toEqual({
      endpoints: 7,
      inHub: 0,
      users: 6,
      humans: 4,
      admins: 2,
      byRole: { ADMIN: 2, BUTLER: 1, MEMBER: 2, AGENT: 2 },
      multiSocketUsers: { [users.admin.id]: 2 },
    });
  });

  it('gives an in-hub endpoint (Butler) only what is addressed to it, never broadcasts or records, and counts it apart', () => {
    const cast = bindCast(router);
    const inHub = new RecordingEndpoint(users.butler, true);
    router.send({ type: 'BIND', endpoint: inHub });
    deliver(
      router,
      // A local delivery carries its frame object beside the text (remote ones are parsed from the text).
      delivery('CHAT', 'member', 'butler', { text: 'to Butler', frame: { type: 'CHAT' } as MessageFrame }),
      delivery('CHAT', 'member', null, { text: 'broadcast' }),
      delivery('SYSTEM_LOG', 'agent', null, { text: 'telemetry' }),
      delivery('CHAT', 'admin', 'butler', { text: 'a record', socketsOnly: true }),
    );
    expect(inHub.texts).toEqual(['to Butler']);
    expect(cast.butler.texts).toEqual(['to Butler', 'broadcast', 'a record']);
    expect(summary(router)).toMatchObject({ endpoints: 6, inHub: 1 });
    router.send({ type: 'CLOSE_ALL', code: 4001, reason: 'reset' });
    expect(inHub.closes).toEqual([]);
  });

  it('hands an in-hub endpoint the frame object, parsed once from the text when it came from another node', () => {
    const frames: unknown[] = [];
    const butler: Endpoint = { key: nextEndpointKey(), user: users.butler, inHub: true, deliver: (_text, _id, frame) => void frames.push(frame), close() {} };
    router.send({ type: 'BIND', endpoint: butler });
    const local = { type: 'CHAT', payload: 'local' } as unknown as MessageFrame;
    deliver(router, delivery('CHAT', 'member', 'butler', { frame: local }));
    const remote = delivery('CHAT', 'member', 'butler');
    deliver(router, remote);
    expect(frames[0]).toBe(local);
    expect(frames[1]).toEqual(JSON.parse(remote.text));
    // A text that is not JSON reaches it without a frame instead of failing the router.
    deliver(router, delivery('CHAT', 'member', 'butler', { text: 'not json' }));
    expect(frames[2]).toBeUndefined();
    expect(router.getSnapshot().status).toBe('active');
  });

  it('binds an endpoint once: a repeated BIND changes nothing', () => {
    const e = bind(router, users.agent);
    router.send({ type: 'BIND', endpoint: e });
    expect(summary(router)).toMatchObject({ endpoints: 1, users: 1 });
    expect(presence.events).toEqual(['online:10']);
    deliver(router, delivery('CHAT', 'member', 'agent'));
    expect(e.received).toHaveLength(1);
  });

  it('ignores an UNBIND of an endpoint that was never bound', () => {
    const bound = bind(router, users.agent);
    const stranger = new RecordingEndpoint(users.agent);
    router.send({ type: 'UNBIND', endpoint: stranger });
    expect(summary(router)).toMatchObject({ endpoints: 1, users: 1 });
    expect(presence.events).toEqual(['online:10']);
    deliver(router, delivery('CHAT', 'butler', 'agent'));
    expect(bound.received).toHaveLength(1);
  });

  it('ignores a second UNBIND of the same endpoint while the user has another one', () => {
    const old = bind(router, users.agent);
    const current = bind(router, users.agent);
    router.send({ type: 'UNBIND', endpoint: old });
    router.send({ type: 'UNBIND', endpoint: old });
    expect(summary(router)).toMatchObject({ endpoints: 1, users: 1 });
    expect(presence.events).toEqual(['online:10']);
    deliver(router, delivery('CHAT', 'butler', 'agent'));
    expect(current.received).toHaveLength(1);
  });

  it("never lets a late close of an old socket remove the user's newer socket (STYLE 11)", () => {
    // Reconnect race: the old socket unbinds, the new one binds, then the old close is seen again.
    const old = bind(router, users.agent);
    router.send({ type: 'UNBIND', endpoint: old });
    const reconnected = bind(router, users.agent);
    router.send({ type: 'UNBIND', endpoint: old });
    expect(summary(router)).toMatchObject({ endpoints: 1, users: 1 });
    expect(presence.events).toEqual(['online:10', 'offline:10', 'online:10']);
    deliver(router, delivery('CHAT', 'butler', 'agent'));
    expect(reconnected.received).toHaveLength(1);
    expect(old.received).toHaveLength(0);
  });
});

// ---- closing and shutdown ----------------------------------------------------------------------

describe('router: closing and shutdown', () => {
  let presence: FakePresence;
  let router: RouterActor;
  beforeEach(() => {
    presence = new FakePresence();
    router = startRouter(presence);
  });
  afterEach(() => {
    router.stop();
  });

  it("CLOSE_USER closes every endpoint of that user and no one else's", () => {
    const cast = bindCast(router);
    const agentTab2 = bind(router, users.agent);
    router.send({ type: 'CLOSE_USER', userId: users.agent.id, code: CloseCode.unauthorized, reason: 'token rotated' });
    const expected = [{ code: CloseCode.unauthorized, reason: 'token rotated' }];
    expect(cast.agent.closes).toEqual(expected);
    expect(agentTab2.closes).toEqual(expected);
    for (const n of names.filter((n) => n !== 'agent')) expect(cast[n].closes).toEqual([]);
    expect(router.getSnapshot().value).toBe('running');
  });

  it('CLOSE_USER for a user with no endpoint does nothing', () => {
    const cast = bindCast(router);
    router.send({ type: 'CLOSE_USER', userId: 999, code: CloseCode.unauthorized, reason: 'gone' });
    for (const n of names) expect(cast[n].closes).toEqual([]);
  });

  it('CLOSE_ALL closes every endpoint with the given code and keeps running', () => {
    const cast = bindCast(router);
    router.send({ type: 'CLOSE_ALL', code: CloseCode.roleChanged, reason: 'roles changed' });
    for (const n of names) expect(cast[n].closes).toEqual([{ code: CloseCode.roleChanged, reason: 'roles changed' }]);
    expect(router.getSnapshot().value).toBe('running');
  });

  it('SHUTDOWN closes every endpoint with 1001 and moves to stopping', () => {
    const cast = bindCast(router);
    router.send({ type: 'SHUTDOWN' });
    expect(router.getSnapshot().value).toBe('stopping');
    for (const n of names) {
      expect(cast[n].closes).toHaveLength(1);
      expect(cast[n].closes[0]!.code).toBe(CloseCode.goingAway);
    }
  });

  it('in stopping, refuses a new BIND by closing that endpoint with 1001', () => {
    bindCast(router);
    router.send({ type: 'SHUTDOWN' });
    const before = summary(router);
    const late = bind(router, users.agent2);
    expect(late.closes).toEqual([{ code: CloseCode.goingAway, reason: expect.any(String) }]);
    expect(summary(router)).toEqual(before);
    expect(presence.events).toEqual(['online:10', 'online:11']);
  });

  it('in stopping, still delivers to endpoints that are bound, and unbinds them', () => {
    const cast = bindCast(router);
    router.send({ type: 'SHUTDOWN' });
    const late = bind(router, users.member);
    const d = delivery('CHAT', 'butler', null);
    deliver(router, d);
    expect(whoGot(cast, d.text)).toEqual(names.filter((n) => n !== 'butler'));
    expect(late.received).toEqual([]);

    router.send({ type: 'UNBIND', endpoint: cast.agent });
    expect(presence.events).toEqual(['online:10', 'online:11', 'offline:10']);
    expect(summary(router).endpoints).toBe(names.length - 1);
  });

  it('in stopping, ignores CLOSE_ALL, CLOSE_USER and a second SHUTDOWN', () => {
    const cast = bindCast(router);
    router.send({ type: 'SHUTDOWN' });
    router.send({ type: 'CLOSE_ALL', code: CloseCode.normal, reason: 'again' });
    router.send({ type: 'CLOSE_USER', userId: users.agent.id, code: CloseCode.unauthorized, reason: 'again' });
    router.send({ type: 'SHUTDOWN' });
    for (const n of names) expect(cast[n].closes).toHaveLength(1);
  });
});

// ---- pure transitions --------------------------------------------------------------------------

describe('router: transition table (pure)', () => {
  const presence = new FakePresence();
  const endpoint = new RecordingEndpoint(users.agent);
  const events = {
    BIND: { type: 'BIND', endpoint },
    UNBIND: { type: 'UNBIND', endpoint },
    DELIVER: { type: 'DELIVER', deliveries: [] },
    CLOSE_USER: { type: 'CLOSE_USER', userId: 10, code: CloseCode.unauthorized, reason: 'r' },
    CLOSE_ALL: { type: 'CLOSE_ALL', code: CloseCode.normal, reason: 'r' },
    SHUTDOWN: { type: 'SHUTDOWN' },
  } satisfies Record<RouterEvent['type'], RouterEvent>;

  const snapshotIn = (state: 'running' | 'stopping') => {
    const [initial] = initialTransition(routerMachine, { presence });
    return state === 'running' ? initial : transition(routerMachine, initial, events.SHUTDOWN)[0];
  };

  it('starts in running with no actions', () => {
    const [snapshot, actions] = initialTransition(routerMachine, { presence });
    expect(snapshot.value).toBe('running');
    expect(actions).toEqual([]);
  });

  it.each([
    ['running', 'BIND', 'running', ['bind']],
    ['running', 'UNBIND', 'running', ['unbind']],
    ['running', 'DELIVER', 'running', ['deliver']],
    ['running', 'CLOSE_USER', 'running', ['closeUser']],
    ['running', 'CLOSE_ALL', 'running', ['closeAll']],
    ['running', 'SHUTDOWN', 'stopping', ['closeAll']],
    ['stopping', 'BIND', 'stopping', ['refuseBind']],
    ['stopping', 'UNBIND', 'stopping', ['unbind']],
    ['stopping', 'DELIVER', 'stopping', ['deliver']],
    ['stopping', 'CLOSE_USER', 'stopping', []],
    ['stopping', 'CLOSE_ALL', 'stopping', []],
    ['stopping', 'SHUTDOWN', 'stopping', []],
  ] as const)('%s + %s → %s with actions %j', (from, event, to, actions) => {
    const [next, executable] = transition(routerMachine, snapshotIn(from), events[event]);
    expect(next.value).toBe(to);
    expect(executable.map((a) => a.type)).toEqual(actions);
  });

  it('runs no effect itself: the endpoint is neither bound nor closed by a pure transition', () => {
    const [afterBind] = transition(routerMachine, snapshotIn('running'), events.BIND);
    expect(afterBind.context.table.summary().endpoints).toBe(0);
    transition(routerMachine, afterBind, events.SHUTDOWN);
    expect(endpoint.closes).toEqual([]);
    expect(presence.events).toEqual([]);
  });

  it.each(['BIND', 'UNBIND', 'DELIVER', 'CLOSE_USER', 'CLOSE_ALL', 'SHUTDOWN'] as const)('running accepts %s', (event) => {
    expect(snapshotIn('running').can(events[event])).toBe(true);
  });

  it.each([
    ['BIND', true],
    ['UNBIND', true],
    ['DELIVER', true],
    ['CLOSE_USER', false],
    ['CLOSE_ALL', false],
    ['SHUTDOWN', false],
  ] as const)('stopping: can(%s) is %s', (event, accepted) => {
    expect(snapshotIn('stopping').can(events[event])).toBe(accepted);
  });
});

// ---- audienceOf / reaches ----------------------------------------------------------------------

describe('audienceOf and reaches: the routing rules as a table', () => {
  const everyone = names;
  const humans: Name[] = ['admin', 'member', 'member2'];
  const but = (...excluded: Name[]) => everyone.filter((n) => !excluded.includes(n));

  // type, sender, target (null: untargeted), who receives the message itself, monitor copy for admins
  const rows: Array<[string, Name, Name | null, Name[], boolean]> = [
    // rule 1: targeted → the target; a human's chat is echoed to the human
    ['CHAT', 'member', 'agent', ['member', 'agent'], false],
    ['CHAT', 'admin', 'butler', ['admin', 'butler'], false],
    ['CHAT', 'member', 'member2', ['member', 'member2'], false],
    ['CHAT_STREAM', 'member', 'agent', ['member', 'agent'], false],
    ['CHAT_STREAM_END', 'admin', 'agent', ['admin', 'agent'], false],
    ['CHAT', 'agent', 'member', ['member'], false],
    ['CHAT', 'butler', 'member', ['member'], false],
    ['CHAT', 'agent', 'agent2', ['agent2'], false],
    ['SYSTEM_LOG', 'agent', 'member', ['member'], false],
    ['SYSTEM_LOG', 'member', 'agent', ['agent'], false],
    ['WEATHER_UPDATE', 'agent', 'admin', ['admin'], false],
    // rule 4: CHAT between Butler and an agent is copied to admins
    ['CHAT', 'butler', 'agent', ['agent'], true],
    ['CHAT', 'agent', 'butler', ['butler'], true],
    ['CHAT_STREAM', 'butler', 'agent', ['agent'], false],
    ['CHAT_STREAM_END', 'agent', 'butler', ['butler'], false],
    ['SYSTEM_LOG', 'agent', 'butler', ['butler'], false],
    // rule 2: untargeted chat → everyone, a machine sender excepted
    ['CHAT', 'member', null, everyone, false],
    ['CHAT', 'admin', null, everyone, false],
    ['CHAT_STREAM', 'member', null, everyone, false],
    ['CHAT', 'agent', null, but('agent'), false],
    ['CHAT_STREAM', 'agent', null, but('agent'), false],
    ['CHAT_STREAM_END', 'agent', null, but('agent'), false],
    ['CHAT', 'butler', null, but('butler'), false],
    ['CHAT_STREAM_END', 'butler', null, but('butler'), false],
    // rule 3: untargeted telemetry → humans only
    ['SYSTEM_LOG', 'agent', null, humans, false],
    ['WEATHER_UPDATE', 'agent', null, humans, false],
    ['CODE_REVIEW', 'agent2', null, humans, false],
    ['SECURITY_ALERT', 'butler', null, humans, false],
    ['SYSTEM_LOG', 'member', null, humans, false],
    // anything else untargeted reaches no one
    ['PRESENCE', 'agent', null, [], false],
  ];

  it.each(rows)('%s from %s to %s reaches %j (monitor %s)', (type, sender, target, expected, monitor) => {
    const audience = audienceOf(routable(type, sender, target));
    expect(audience.monitor).toBe(monitor);
    const reached = names.filter((n) => reaches(audience, users[sender].id, users[n]));
    expect(reached).toEqual(names.filter((n) => expected.includes(n)));
  });

  it.each(rows)('the router agrees with reaches(): %s from %s to %s', (type, sender, target, expected, monitor) => {
    const router = startRouter();
    try {
      const cast = bindCast(router);
      const d = delivery(type, sender, target, { monitorText: `monitor:${type}:${sender}` });
      deliver(router, d);
      expect(whoGot(cast, d.text)).toEqual(names.filter((n) => expected.includes(n)));
      expect(whoGot(cast, d.monitorText!)).toEqual(monitor ? ['admin'] : []);
    } finally {
      router.stop();
    }
  });

  it('describes a targeted audience with target, echo and monitor', () => {
    expect(audienceOf(routable('CHAT', 'member', 'agent'))).toEqual({ target: 10, echo: true, exceptSender: false, monitor: false });
    expect(audienceOf(routable('CHAT', 'butler', 'agent'))).toEqual({ target: 10, echo: false, exceptSender: false, monitor: true });
    expect(audienceOf(routable('SYSTEM_LOG', 'member', 'agent'))).toEqual({ target: 10, echo: false, exceptSender: false, monitor: false });
  });

  it('describes an untargeted audience with broadcast and exceptSender', () => {
    expect(audienceOf(routable('CHAT', 'agent', null))).toEqual({ broadcast: 'everyone', echo: false, exceptSender: true, monitor: false });
    expect(audienceOf(routable('CHAT', 'member', null))).toEqual({ broadcast: 'everyone', echo: false, exceptSender: false, monitor: false });
    expect(audienceOf(routable('CODE_REVIEW', 'agent', null))).toEqual({ broadcast: 'humans', echo: false, exceptSender: false, monitor: false });
  });

  it.each<[string, Role]>([
    ['ADMIN', 'ADMIN'],
    ['MEMBER', 'MEMBER'],
    ['AGENT', 'AGENT'],
    ['BUTLER', 'BUTLER'],
  ])('a targeted audience reaches a %s that is neither target nor sender: never', (_label, role) => {
    const audience = audienceOf(routable('CHAT', 'member', 'agent'));
    expect(reaches(audience, users.member.id, { id: 500, role })).toBe(false);
  });
});

describe('a revocation racing an upgrade', () => {
  it('closes a socket whose credential was checked before CLOSE_USER but which binds after it', () => {
    let clock = 1_000;
    const presence = new FakePresence();
    const router = createActor(routerMachine, { input: { presence, now: () => clock } }).start();
    const checkedEarly = Object.assign(new RecordingEndpoint(users.agent), { authenticatedAt: 900 });
    router.send({ type: 'CLOSE_USER', userId: users.agent.id, code: CloseCode.unauthorized, reason: 'api_token rotated' });
    router.send({ type: 'BIND', endpoint: checkedEarly });
    expect(checkedEarly.closes).toEqual([{ code: CloseCode.unauthorized, reason: 'api_token rotated' }]);
    expect(router.getSnapshot().context.table.countOf(users.agent.id)).toBe(0);
    expect(presence.events).toEqual([]);

    // A credential checked after the revocation (the new token) binds as usual.
    clock = 1_500;
    const checkedLater = Object.assign(new RecordingEndpoint(users.agent), { authenticatedAt: 1_200 });
    router.send({ type: 'BIND', endpoint: checkedLater });
    expect(checkedLater.closes).toEqual([]);
    expect(router.getSnapshot().context.table.countOf(users.agent.id)).toBe(1);
    expect(presence.events).toEqual([`online:${users.agent.id}`]);
  });
});

// Butler's dispatching machine: which INBOUND frames become turns of which conversation, which are
// claimed as answers, DECIDED, RESET and SHUTDOWN; as a pure transition() table (no conversation
// starts, the snapshot given is left as it was) and as a running actor with fake ports.
import { afterEach, describe, expect, it } from 'vitest';
import { createActor, initialTransition, transition, type Actor } from 'xstate';
import { butlerMachine, type ButlerEvent, type ButlerInput } from '../../../src/butler/actor.js';
import { conversationMachine, type ConversationActor, type ConversationPorts } from '../../../src/butler/conversation.js';
import { IdleTimers } from '../../../src/butler/idleTimers.js';
import type { Asker } from '../../../src/butler/tools.js';
import type { Turn } from '../../../src/butler/turns.js';
import type { MessageFrame } from '../../../src/protocol/frames.js';
import type { AuthorizationRow } from '../../../src/store/schema.js';

const BUTLER = { id: 1, username: 'Butler', role: 'AGENT' as const };

const chat = (overrides: Partial<MessageFrame> = {}): MessageFrame => ({
  id: 10,
  conversation_id: 7,
  type: 'CHAT',
  sender_id: 3,
  sender_name: 'mia',
  sender_role: 'MEMBER',
  target_id: BUTLER.id,
  payload: 'hello',
  timestamp: '2026-01-01T00:00:00.000Z',
  ...overrides,
});

const request: AuthorizationRow = {
  action_id: 'a1',
  requester_id: 3,
  conversation_id: 7,
  approver_id: null,
  target_agent_id: 4,
  target_agent_name: 'worker',
  command: 'restart',
  reason: 'stuck',
  status: 'APPROVED',
  message_ids: '[]',
  decided_by: 2,
  created_at: '2026-01-01T00:00:00.000Z',
  expires_at: '2026-01-01T00:10:00.000Z',
  decided_at: '2026-01-01T00:01:00.000Z',
  decision_note: null,
};

/** Ports whose answers never settle: a conversation stays in `answering` with its turn. */
function fakePorts(): ConversationPorts & { answered: Array<{ turn: Turn; asker: Asker }> } {
  const answered: Array<{ turn: Turn; asker: Asker }> = [];
  return {
    answered,
    answer: (turn, asker) => {
      answered.push({ turn, asker });
      return new Promise(() => undefined);
    },
    refuse: () => undefined,
    failed: () => undefined,
  };
}

function inputWith(claims: (frame: MessageFrame) => boolean = () => false, ports = fakePorts()): ButlerInput {
  return { butler: BUTLER, ports, claimAnswer: claims, maxQueued: 2, idleMs: 60_000 };
}

/** The effects a transition leaves to run, named, and the events it sends to conversations. */
function effectsOf(actions: ReadonlyArray<{ type: string; params?: unknown }>) {
  return actions.map((a) => {
    if (a.type !== 'xstate.sendTo') return a.type;
    const { event } = a.params as { event: { type: string } };
    return `sendTo:${event.type}`;
  });
}

describe('butler machine transitions (pure)', () => {
  const running = (input = inputWith()) => initialTransition(butlerMachine, input)[0];

  it.each([
    ['a frame that is not CHAT', chat({ type: 'STATUS_UPDATE' })],
    ['an unstored CHAT (no id)', chat({ id: undefined })],
    ['a CHAT addressed to someone else', chat({ target_id: 99 })],
  ])('ignores %s', (_name, frame) => {
    const from = running();
    const [next, actions] = transition(butlerMachine, from, { type: 'INBOUND', frame });
    expect(actions).toEqual([]);
    expect(next.context).toMatchObject({ turns: 0, claimed: 0 });
  });

  it("claims an agent's answer to Butler's request, and an agent's echo of Butler's stream, without a turn", () => {
    const seen: MessageFrame[] = [];
    const from = running(inputWith((frame) => (seen.push(frame), frame.id === 11)));
    const [answered, a1] = transition(butlerMachine, from, { type: 'INBOUND', frame: chat({ id: 11, sender_role: 'AGENT' }) });
    expect(a1).toEqual([]);
    expect(answered.context).toMatchObject({ claimed: 1, turns: 0 });
    const [echoed, a2] = transition(butlerMachine, answered, { type: 'INBOUND', frame: chat({ id: 12, sender_role: 'AGENT', stream_id: 'butler-s1' }) });
    expect(a2).toEqual([]);
    expect(echoed.context).toMatchObject({ claimed: 2, turns: 0 });
    expect(seen.map((f) => f.id)).toEqual([11, 12]);
  });

  it("gives an agent's CHAT that answers nothing a turn, like a human's", () => {
    const [next, actions] = transition(butlerMachine, running(), { type: 'INBOUND', frame: chat({ sender_role: 'AGENT', sender_id: 4 }) });
    expect(effectsOf(actions)).toEqual(['adopt', 'sendTo:TURN']);
    expect(next.context.turns).toBe(1);
  });

  it.each([
    ['a CHAT', 'hello', 'sendTo:TURN'],
    ['/cancel (trimmed)', ' /cancel ', 'sendTo:CANCEL'],
  ])('makes %s a turn of a new conversation, started by the adopt effect only', (_name, payload, send) => {
    const ports = fakePorts();
    const from = running(inputWith(undefined, ports));
    const [next, actions] = transition(butlerMachine, from, { type: 'INBOUND', frame: chat({ payload }) });
    expect(effectsOf(actions)).toEqual(['adopt', send]);
    expect(next.context.turns).toBe(1);
    const adopt = actions[0]!.params as { key: string; actor: ConversationActor };
    expect(adopt.key).toBe('3:7');
    // Not registered and given nothing to answer: the transition changed nothing outside its result.
    expect(from.context.conversations.size).toBe(0);
    expect(ports.answered).toEqual([]);
    expect(next.context.conversations.size).toBe(0);
  });

  it('sends a DECIDED request to the conversation that asked, as a decision turn', () => {
    const event: ButlerEvent = { type: 'DECIDED', request, requester: { id: 3, username: 'mia', role: 'MEMBER' } };
    const [next, actions] = transition(butlerMachine, running(), event);
    expect(effectsOf(actions)).toEqual(['adopt', 'sendTo:TURN']);
    expect((actions[0]!.params as { key: string }).key).toBe('3:7');
    const sent = actions[1]!.params as { event: { turn: Turn } };
    expect(sent.event.turn).toEqual({ kind: 'decision', request });
    expect(next.context.turns).toBe(1);
  });

  it('leaves forgetting an ended conversation to the forget effect', () => {
    const ended = createActor(conversationMachine, {
      input: {
        key: '3:7',
        asker: { principal: { id: 3, username: 'mia', role: 'MEMBER' }, conversationId: 7 },
        ports: fakePorts(),
        maxQueued: 1,
        idleMs: 1,
        idle: new IdleTimers(),
      },
    });
    const [next, actions] = transition(butlerMachine, running(), { type: 'CONVERSATION_ENDED', key: '3:7', actor: ended });
    expect(effectsOf(actions)).toEqual(['forget']);
    expect(next.value).toBe('running');
  });

  it.each([
    ['RESET', 'running'],
    ['SHUTDOWN', 'stopped'],
  ] as const)('%s with no conversations → %s, nothing to end', (type, to) => {
    const [next, actions] = transition(butlerMachine, running(), { type });
    expect(next.value).toBe(to);
    expect(actions).toEqual([]);
    expect(next.context.conversations.size).toBe(0);
  });
});

describe('butler actor', () => {
  const started: Array<Actor<typeof butlerMachine>> = [];
  afterEach(() => {
    for (const actor of started.splice(0)) actor.stop();
  });
  const start = (input: ButlerInput) => {
    const actor = createActor(butlerMachine, { input }).start();
    started.push(actor);
    return actor;
  };

  it('keeps one conversation per asker and thread, hands it each turn in order, and counts them', () => {
    const ports = fakePorts();
    const butler = start(inputWith(undefined, ports));
    butler.send({ type: 'INBOUND', frame: chat({ id: 10, payload: 'first' }) });
    butler.send({ type: 'INBOUND', frame: chat({ id: 11, payload: 'second' }) });
    butler.send({ type: 'INBOUND', frame: chat({ id: 12, conversation_id: 8, payload: 'other thread' }) });
    const { context } = butler.getSnapshot();
    expect([...context.conversations.keys()]).toEqual(['3:7', '3:8']);
    expect(context.turns).toBe(3);
    // The first thread answers 'first' and queues 'second'; the other thread answers at once.
    expect(ports.answered.map((a) => (a.turn.kind === 'message' ? a.turn.message.text : a.turn.kind))).toEqual(['first', 'other thread']);
    expect(context.conversations.get('3:7')!.getSnapshot().context.queue).toHaveLength(1);
  });

  it('forgets a conversation that ended, and ends every conversation on RESET', () => {
    const butler = start(inputWith());
    butler.send({ type: 'INBOUND', frame: chat({ conversation_id: 7 }) });
    butler.send({ type: 'INBOUND', frame: chat({ conversation_id: 8 }) });
    const [first, second] = [...butler.getSnapshot().context.conversations.values()];
    first!.send({ type: 'END' });
    expect([...butler.getSnapshot().context.conversations.keys()]).toEqual(['3:8']);
    butler.send({ type: 'RESET' });
    expect(butler.getSnapshot().context.conversations.size).toBe(0);
    expect(second!.getSnapshot().status).toBe('done');
    expect(butler.getSnapshot().value).toBe('running');
  });

  it('starts a new conversation for a thread whose conversation ended', () => {
    const butler = start(inputWith());
    butler.send({ type: 'INBOUND', frame: chat({ id: 10 }) });
    const first = butler.getSnapshot().context.conversations.get('3:7')!;
    first.send({ type: 'END' });
    butler.send({ type: 'INBOUND', frame: chat({ id: 11 }) });
    const second = butler.getSnapshot().context.conversations.get('3:7')!;
    expect(second).not.toBe(first);
    expect(second.getSnapshot().status).toBe('active');
  });

  it('ends every conversation and stops on SHUTDOWN', () => {
    const butler = start(inputWith());
    butler.send({ type: 'INBOUND', frame: chat() });
    const conversation = butler.getSnapshot().context.conversations.get('3:7')!;
    butler.send({ type: 'SHUTDOWN' });
    expect(butler.getSnapshot().status).toBe('done');
    expect(conversation.getSnapshot().status).toBe('done');
  });
});

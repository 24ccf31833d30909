// Butler's conversation actor: turns answered one at a time in order, the queue bound, /cancel,
// idle end, END on shutdown; with a fake answer port whose promises the test settles, and the pure
// transition table (which also shows that a transition only names the answer to start, never runs it).
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createActor, initialTransition, transition } from 'xstate';
import { conversationMachine, type ConversationEvent, type ConversationInput, type ConversationPorts } from '../../../src/butler/conversation.js';
import { TurnCancelled } from '../../../src/butler/brain.js';
import { IdleTimers } from '../../../src/butler/idleTimers.js';
import type { Asker } from '../../../src/butler/tools.js';
import type { Turn } from '../../../src/butler/turns.js';

const asker: Asker = { principal: { id: 3, username: 'mia', role: 'MEMBER' }, conversationId: 7 };
const message = (id: number, text = `message ${id}`): Extract<Turn, { kind: 'message' }> => ({
  kind: 'message',
  message: { id, text, sender: asker.principal, conversationId: 7 },
});

interface Call {
  turn: Turn;
  signal: AbortSignal;
  finish(): void;
}

class FakePorts implements ConversationPorts {
  readonly calls: Call[] = [];
  readonly refused: number[] = [];
  readonly failures: unknown[] = [];
  answer(turn: Turn, _asker: Asker, signal: AbortSignal): Promise<void> {
    return new Promise((resolve) => this.calls.push({ turn, signal, finish: resolve }));
  }
  refuse(_asker: Asker, queued: number): void {
    this.refused.push(queued);
  }
  failed(error: unknown): void {
    this.failures.push(error);
  }
  texts(): string[] {
    return this.calls.map((c) => (c.turn.kind === 'message' ? c.turn.message.text : c.turn.kind));
  }
}

const flush = () => new Promise((resolve) => setImmediate(resolve));

function start(ports: FakePorts, overrides: Partial<ConversationInput> = {}) {
  const actor = createActor(conversationMachine, { input: { key: '3:7', asker, ports, maxQueued: 2, idleMs: 60_000, idle: new IdleTimers(), ...overrides } });
  actor.start();
  return actor;
}

afterEach(() => vi.useRealTimers());

describe('conversation actor', () => {
  it('answers turns one at a time, in the order they came', async () => {
    const ports = new FakePorts();
    const actor = start(ports);
    actor.send({ type: 'TURN', turn: message(1) });
    actor.send({ type: 'TURN', turn: message(2) });
    expect(actor.getSnapshot().value).toBe('answering');
    expect(ports.texts()).toEqual(['message 1']);
    expect(actor.getSnapshot().context.queue).toHaveLength(1);

    ports.calls[0]!.finish();
    await flush();
    expect(ports.texts()).toEqual(['message 1', 'message 2']);
    ports.calls[1]!.finish();
    await flush();
    expect(actor.getSnapshot().value).toBe('idle');
    expect(actor.getSnapshot().context.answered).toBe(2);
  });

  it('turns a message away once the queue is full, without dropping the queued ones', async () => {
    const ports = new FakePorts();
    const actor = start(ports);
    for (let id = 1; id <= 4; id++) actor.send({ type: 'TURN', turn: message(id) });
    expect(ports.refused).toEqual([2]);
    expect(actor.getSnapshot().context.queue.map((t) => (t as { message: { id: number } }).message.id)).toEqual([2, 3]);
  });

  it('aborts the answer in progress on /cancel, drops the queue and answers the cancel itself next', async () => {
    const ports = new FakePorts();
    const actor = start(ports);
    actor.send({ type: 'TURN', turn: message(1) });
    actor.send({ type: 'TURN', turn: message(2) });
    actor.send({ type: 'CANCEL', turn: message(3, '/cancel') });
    const first = ports.calls[0]!;
    expect(first.signal.aborted).toBe(true);
    expect(first.signal.reason).toBeInstanceOf(TurnCancelled);
    first.finish();
    await flush();
    expect(ports.calls[1]!.turn).toMatchObject({ kind: 'message', message: { text: '/cancel' }, cancelled: { inProgress: true, dropped: 1 } });
  });

  it('answers /cancel with nothing to cancel when idle', () => {
    const ports = new FakePorts();
    const actor = start(ports);
    actor.send({ type: 'CANCEL', turn: message(1, '/cancel') });
    expect(ports.calls[0]!.turn).toMatchObject({ cancelled: { inProgress: false, dropped: 0 } });
  });

  it('goes on with the queue when an answer rejects, and reports it', async () => {
    const ports = new FakePorts();
    const failing: ConversationPorts = {
      ...ports,
      refuse: ports.refuse.bind(ports),
      failed: ports.failed.bind(ports),
      answer: () => Promise.reject(new Error('bug')),
    };
    const actor = createActor(conversationMachine, {
      input: { key: 'k', asker, ports: failing, maxQueued: 2, idleMs: 60_000, idle: new IdleTimers() },
    }).start();
    actor.send({ type: 'TURN', turn: message(1) });
    await flush();
    expect(ports.failures).toEqual([new Error('bug')]);
    expect(actor.getSnapshot().value).toBe('idle');
  });

  it('ends after being idle for idleMs, and at once on END (aborting the answer in progress)', async () => {
    vi.useFakeTimers();
    const ports = new FakePorts();
    const timers = new IdleTimers();
    const idle = start(ports, { idleMs: 1000, idle: timers });
    vi.advanceTimersByTime(999);
    expect(idle.getSnapshot().status).toBe('active');
    vi.advanceTimersByTime(1);
    expect(idle.getSnapshot().status).toBe('done');
    expect(timers.size).toBe(0);

    // The idle time counts from the end of the last answer; answering holds no timer.
    const again = start(ports, { idleMs: 1000, idle: timers });
    vi.advanceTimersByTime(900);
    again.send({ type: 'TURN', turn: message(1) });
    expect(timers.size).toBe(0);
    vi.advanceTimersByTime(5000);
    expect(again.getSnapshot().value).toBe('answering');
    ports.calls.at(-1)!.finish();
    await vi.advanceTimersByTimeAsync(999);
    expect(again.getSnapshot().value).toBe('idle');
    expect(timers.size).toBe(1);
    vi.advanceTimersByTime(1);
    expect(again.getSnapshot().status).toBe('done');

    const busy = start(ports);
    busy.send({ type: 'TURN', turn: message(1) });
    busy.send({ type: 'END' });
    expect(busy.getSnapshot().status).toBe('done');
    const aborted = ports.calls.at(-1)!;
    expect(aborted.signal.aborted).toBe(true);
    expect(aborted.signal.reason).not.toBeInstanceOf(TurnCancelled);
    // The aborted answer still ends its stream; its outcome reaches a finished conversation and is dropped.
    aborted.finish();
    await vi.advanceTimersByTimeAsync(0);
    expect(busy.getSnapshot().status).toBe('done');
    expect(ports.failures).toEqual([]);
  });
});

describe('conversation machine transitions (pure)', () => {
  const ports = new FakePorts();
  const input: ConversationInput = { key: 'k', asker, ports, maxQueued: 1, idleMs: 1000, idle: new IdleTimers() };
  const events: Record<string, ConversationEvent> = {
    TURN: { type: 'TURN', turn: message(1) },
    CANCEL: { type: 'CANCEL', turn: message(2, '/cancel') },
    END: { type: 'END' },
    IDLE: { type: 'IDLE' },
    ANSWERED: { type: 'ANSWERED' },
    ANSWER_FAILED: { type: 'ANSWER_FAILED', error: new Error('bug') },
  };
  const idle = () => initialTransition(conversationMachine, input)[0];
  const answering = () => transition(conversationMachine, idle(), events.TURN!)[0];
  const full = () => transition(conversationMachine, answering(), events.TURN!)[0];

  // Context changes (assign) happen inside the transition; what is left to run are the effects.
  // Entering `answering` starts the answer (runAnswer); its outcome comes back as ANSWERED or ANSWER_FAILED.
  it.each([
    ['idle', 'TURN', 'answering', ['unwatchIdle', 'runAnswer'], 0, idle],
    ['idle', 'CANCEL', 'answering', ['unwatchIdle', 'runAnswer'], 0, idle],
    ['idle', 'END', 'done', ['unwatchIdle', 'stopCurrent'], 0, idle],
    ['idle', 'IDLE', 'done', ['unwatchIdle'], 0, idle],
    ['idle', 'ANSWERED', 'idle', [], 0, idle],
    ['answering', 'TURN', 'answering', [], 1, answering],
    ['answering (queue full)', 'TURN', 'answering', ['refuseBusy'], 1, full],
    ['answering', 'CANCEL', 'answering', ['abortCurrent'], 1, answering],
    ['answering', 'END', 'done', ['stopCurrent'], 0, answering],
    ['answering', 'ANSWERED', 'idle', ['watchIdle'], 0, answering],
    ['answering', 'ANSWER_FAILED', 'idle', ['reportFailure', 'watchIdle'], 0, answering],
    ['answering (one queued)', 'ANSWERED', 'answering', ['runAnswer'], 0, full],
    ['answering (one queued)', 'ANSWER_FAILED', 'answering', ['reportFailure', 'runAnswer'], 0, full],
  ] as const)('%s + %s → %s with effects %j, %i queued', (_name, event, to, effects, queued, from) => {
    const [next, executable] = transition(conversationMachine, from(), events[event]!);
    expect(next.value).toBe(to);
    expect(executable.map((a) => a.type).filter((t) => !t.startsWith('xstate.'))).toEqual(effects);
    if (to !== 'done') expect(next.context.queue).toHaveLength(queued);
  });

  it('runs no answer by a pure transition', () => {
    transition(conversationMachine, answering(), events.TURN!);
    expect(ports.calls).toEqual([]);
  });
});

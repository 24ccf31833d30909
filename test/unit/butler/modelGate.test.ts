// BUTLER_MAX_CONCURRENCY's gate: at most `max` calls at once, waiting calls let in round-robin by
// conversation (a burst from one cannot starve the others), aborted waiters leave the queue.
import { describe, expect, it } from 'vitest';
import { createModelGate, gatedModel } from '../../../src/butler/modelGate.js';
import type { LanguageModel, ModelStep } from '../../../src/butler/model.js';

const never = new AbortController().signal;

describe('model gate', () => {
  it('lets in up to max at once and the next one when a slot is released', async () => {
    const gate = createModelGate(2);
    const a = await gate.acquire('a', never);
    await gate.acquire('b', never);
    expect(gate.active).toBe(2);
    let third = false;
    const waiting = gate.acquire('c', never).then((release) => {
      third = true;
      return release;
    });
    await Promise.resolve();
    expect([third, gate.queued]).toEqual([false, 1]);
    a();
    a(); // a second release of the same slot frees nothing more
    const release = await waiting;
    expect([third, gate.active, gate.queued]).toEqual([true, 2, 0]);
    release();
    expect(gate.active).toBe(1);
  });

  it('serves waiting conversations round-robin: a burst from one does not go first', async () => {
    const gate = createModelGate(1);
    const first = await gate.acquire('burst', never);
    const order: string[] = [];
    const ask = (key: string, label: string) =>
      gate.acquire(key, never).then((release) => {
        order.push(label);
        release();
      });
    const all = [
      ask('burst', 'burst-1'),
      ask('burst', 'burst-2'),
      ask('burst', 'burst-3'),
      ask('quiet', 'quiet-1'),
      ask('other', 'other-1'),
      ask('quiet', 'quiet-2'),
    ];
    expect(gate.queued).toBe(6);
    first();
    await Promise.all(all);
    expect(order).toEqual(['burst-1', 'quiet-1', 'other-1', 'burst-2', 'quiet-2', 'burst-3']);
    expect([gate.active, gate.queued]).toEqual([0, 0]);
  });

  it('takes an aborted waiter out of the queue and rejects it with the reason', async () => {
    const gate = createModelGate(1);
    const held = await gate.acquire('a', never);
    const cancel = new AbortController();
    const aborted = gate.acquire('b', cancel.signal);
    const next = gate.acquire('c', never);
    cancel.abort(new Error('cancelled'));
    await expect(aborted).rejects.toThrow('cancelled');
    expect(gate.queued).toBe(1);
    held();
    (await next)();
    expect(gate.active).toBe(0);
    await expect(gate.acquire('d', cancel.signal)).rejects.toThrow('cancelled');
  });

  it('holds a slot for the whole of a model step, and frees it when the step fails', async () => {
    const gate = createModelGate(1);
    let finish!: (step: ModelStep) => void;
    const model: LanguageModel = {
      name: 'm',
      step: () => new Promise<ModelStep>((resolve) => (finish = resolve)),
    };
    const gated = gatedModel(model, gate);
    const running = gated.step([], [], { signal: never, onDelta: () => undefined, queueKey: 'a' });
    await Promise.resolve();
    expect(gate.active).toBe(1);
    finish({ text: 'done', toolCalls: [] });
    await expect(running).resolves.toEqual({ text: 'done', toolCalls: [] });
    expect(gate.active).toBe(0);
    const failing = gatedModel({ name: 'f', step: () => Promise.reject(new Error('model down')) }, gate);
    await expect(failing.step([], [], { signal: never, onDelta: () => undefined })).rejects.toThrow('model down');
    expect(gate.active).toBe(0);
  });
});

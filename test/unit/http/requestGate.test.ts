// The request gate on its own: counting, draining, refusing once closed, and the drain timeout.
import { EventEmitter } from 'node:events';
import { describe, expect, it, vi } from 'vitest';
import { HubError } from '../../../src/errors.js';
import type { Request, Response } from '../../../src/http/context.js';
import { createRequestGate } from '../../../src/http/requestGate.js';

function fakeResponse() {
  const res = new EventEmitter() as EventEmitter & { headers: Record<string, string>; setHeader(name: string, value: string): void };
  res.headers = {};
  res.setHeader = (name, value) => {
    res.headers[name] = value;
  };
  return res;
}

function enter(gate: ReturnType<typeof createRequestGate>) {
  const res = fakeResponse();
  let passed: unknown = 'not called';
  gate.middleware({} as Request, res as unknown as Response, (err?: unknown) => {
    passed = err;
  });
  return { res, passed: () => passed };
}

describe('request gate', () => {
  it('counts requests until they finish or close, once each', () => {
    const gate = createRequestGate();
    const a = enter(gate);
    const b = enter(gate);
    expect(a.passed()).toBeUndefined();
    expect(gate.inFlight).toBe(2);
    a.res.emit('finish');
    a.res.emit('close');
    expect(gate.inFlight).toBe(1);
    b.res.emit('close');
    expect(gate.inFlight).toBe(0);
  });

  it('counts a request out when only its socket closes (the client hung up before the answer)', () => {
    const gate = createRequestGate();
    const res = fakeResponse() as ReturnType<typeof fakeResponse> & { socket: EventEmitter };
    res.socket = new EventEmitter();
    gate.middleware({} as Request, res as unknown as Response, () => undefined);
    expect(gate.inFlight).toBe(1);
    res.socket.emit('close');
    expect(gate.inFlight).toBe(0);
    res.emit('finish');
    expect(gate.inFlight).toBe(0);
    expect(res.socket.listenerCount('close')).toBe(0);
  });

  it('resolves close() when the last request in flight finishes', async () => {
    const gate = createRequestGate();
    const a = enter(gate);
    let drained: boolean | undefined;
    const closing = gate.close(60_000).then((ok) => (drained = ok));
    await Promise.resolve();
    expect(drained).toBeUndefined();
    a.res.emit('finish');
    await closing;
    expect(drained).toBe(true);
  });

  it('turns new requests away with 503 and Connection: close once closing', async () => {
    const gate = createRequestGate();
    await gate.close(1000);
    const late = enter(gate);
    expect(late.passed()).toBeInstanceOf(HubError);
    expect((late.passed() as HubError).status).toBe(503);
    expect((late.passed() as HubError).message).toBe('the hub is shutting down');
    expect(late.res.headers['Connection']).toBe('close');
    expect(gate.inFlight).toBe(0);
  });

  it('gives up waiting after the timeout', async () => {
    vi.useFakeTimers();
    try {
      const gate = createRequestGate();
      enter(gate);
      const closing = gate.close(5000);
      vi.advanceTimersByTime(5000);
      expect(await closing).toBe(false);
      expect(gate.inFlight).toBe(1);
    } finally {
      vi.useRealTimers();
    }
  });
});

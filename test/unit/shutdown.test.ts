// Shutdown runs its steps in the declared order whatever order the hub's parts added them in, logs
// each one with its time, and keeps going past a step that fails.
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../src/logger.js';
import { createShutdown } from '../../src/shutdown.js';

function capture() {
  const lines: Array<Record<string, unknown>> = [];
  const logger = createLogger('info', { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) });
  return { logger, lines };
}

const ORDER = ['stop accepting', 'drain', 'close sockets', 'close the store'] as const;

describe('createShutdown', () => {
  it('runs the added steps in the declared order, skipping those never added, and logs each with its time', async () => {
    const { logger, lines } = capture();
    const shutdown = createShutdown({ order: ORDER, logger });
    const ran: string[] = [];
    shutdown.add('close the store', () => void ran.push('close the store'));
    shutdown.add('drain', async () => {
      await Promise.resolve();
      ran.push('drain');
    });
    shutdown.add('stop accepting', () => void ran.push('stop accepting'));
    expect(shutdown.begun).toBe(false);

    await shutdown.run();

    expect(ran).toEqual(['stop accepting', 'drain', 'close the store']);
    expect(shutdown.begun).toBe(true);
    const logged = lines.filter((l) => typeof l['step'] === 'string');
    expect(logged.map((l) => l['step'])).toEqual(['stop accepting', 'drain', 'close the store']);
    for (const line of logged) expect(line).toMatchObject({ level: 'info', ms: expect.any(Number) });
  });

  it('logs a failing step, still runs the rest, and then rejects naming the failed steps', async () => {
    const { logger, lines } = capture();
    const shutdown = createShutdown({ order: ORDER, logger });
    const ran: string[] = [];
    shutdown.add('stop accepting', () => void ran.push('stop accepting'));
    shutdown.add('drain', () => {
      throw new Error('the queue is stuck');
    });
    shutdown.add('close sockets', () => Promise.reject(new Error('a socket would not close')));
    shutdown.add('close the store', () => void ran.push('close the store'));

    await expect(shutdown.run()).rejects.toThrow('shutdown steps failed: drain, close sockets');

    expect(ran).toEqual(['stop accepting', 'close the store']);
    const failures = lines.filter((l) => l['level'] === 'error');
    expect(failures.map((l) => [l['step'], (l['err'] as { message: string }).message])).toEqual([
      ['drain', 'the queue is stuck'],
      ['close sockets', 'a socket would not close'],
    ]);
  });

  it('runs once: a second call returns the same run, and no step can be added after it began', async () => {
    const { logger } = capture();
    const shutdown = createShutdown({ order: ORDER, logger });
    let runs = 0;
    shutdown.add('drain', () => void runs++);
    const first = shutdown.run();
    expect(shutdown.run()).toBe(first);
    await first;
    expect(runs).toBe(1);
    expect(() => shutdown.add('close the store', () => undefined)).toThrow('after shutdown began');
  });

  it('refuses a step outside the order, or one added twice', () => {
    const { logger } = capture();
    const shutdown = createShutdown({ order: ORDER, logger });
    // @ts-expect-error: not one of the order's names
    expect(() => shutdown.add('reboot', () => undefined)).toThrow('"reboot" is not a shutdown step');
    shutdown.add('drain', () => undefined);
    expect(() => shutdown.add('drain', () => undefined)).toThrow('added twice');
  });
});

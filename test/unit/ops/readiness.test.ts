// Readiness decisions: shutting down, store errors, a store that never answers, missing migrations,
// and one log line per change of state rather than one per probe.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createLogger } from '../../../src/logger.js';
import { createReadiness } from '../../../src/ops/readiness.js';

function setup(applied: () => Promise<Array<{ name: string; checksum: string }>>, stopping = () => false) {
  const lines: Array<Record<string, unknown>> = [];
  const logger = createLogger('info', { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) });
  const store = { migrations: { ensureTable: async () => undefined, apply: async () => true, applied } };
  return { lines, readiness: createReadiness({ store, migrations: ['0001_a', '0002_b'], stopping, logger, timeoutMs: 500 }) };
}
const rows = (...names: string[]) => Promise.resolve(names.map((name) => ({ name, checksum: 'x' })));

describe('readiness', () => {
  afterEach(() => void vi.useRealTimers());

  it('is ready when every migration is applied', async () => {
    const { readiness, lines } = setup(() => rows('0001_a', '0002_b', '0003_newer'));
    expect(await readiness.check()).toEqual({ ready: true });
    expect(lines).toEqual([]);
  });

  it('is not ready while shutting down, without asking the store', async () => {
    const applied = vi.fn(() => rows('0001_a', '0002_b'));
    const { readiness } = setup(applied, () => true);
    expect(await readiness.check()).toEqual({ ready: false, reason: 'the hub is shutting down' });
    expect(applied).not.toHaveBeenCalled();
  });

  it('names missing migrations', async () => {
    const { readiness } = setup(() => rows('0001_a'));
    expect(await readiness.check()).toEqual({ ready: false, reason: 'migrations not applied: 0002_b' });
  });

  it('says the store is unreachable when it fails, and logs each change of state once', async () => {
    let up = false;
    const { readiness, lines } = setup(() => (up ? rows('0001_a', '0002_b') : Promise.reject(new Error('connect ECONNREFUSED'))));
    for (let i = 0; i < 3; i++) expect(await readiness.check()).toEqual({ ready: false, reason: 'the store is unreachable' });
    up = true;
    expect(await readiness.check()).toEqual({ ready: true });
    expect(await readiness.check()).toEqual({ ready: true });
    expect(lines.map((l) => [l['level'], l['msg']])).toEqual([
      ['warn', 'readiness: not ready'],
      ['info', 'readiness: ready again'],
    ]);
    expect(JSON.stringify(lines[0])).toContain('ECONNREFUSED');
  });

  it('gives up on a store that does not answer within the time limit', async () => {
    vi.useFakeTimers();
    const { readiness } = setup(() => new Promise(() => undefined));
    const pending = readiness.check();
    await vi.advanceTimersByTimeAsync(500);
    expect(await pending).toEqual({ ready: false, reason: 'the store is unreachable' });
  });

  it('shares one query among the probes that come while it is out, and asks again once it settled', async () => {
    vi.useFakeTimers();
    let answer: (rows: Array<{ name: string; checksum: string }>) => void = () => undefined;
    const applied = vi.fn(() => new Promise<Array<{ name: string; checksum: string }>>((resolve) => (answer = resolve)));
    const { readiness } = setup(applied);
    const probes = [readiness.check(), readiness.check()];
    await vi.advanceTimersByTimeAsync(500);
    probes.push(readiness.check());
    await vi.advanceTimersByTimeAsync(500);
    for (const probe of probes) expect(await probe).toEqual({ ready: false, reason: 'the store is unreachable' });
    expect(applied).toHaveBeenCalledTimes(1);
    answer([
      { name: '0001_a', checksum: 'x' },
      { name: '0002_b', checksum: 'x' },
    ]);
    await vi.advanceTimersByTimeAsync(0);
    const next = readiness.check();
    answer([
      { name: '0001_a', checksum: 'x' },
      { name: '0002_b', checksum: 'x' },
    ]);
    expect(await next).toEqual({ ready: true });
    expect(applied).toHaveBeenCalledTimes(2);
  });
});

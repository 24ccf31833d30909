// Code loaded on demand is fetched again after a failure: waits in order, only once online, and never
// runs the code while one of its stylesheets is still missing.
import { describe, expect, it } from 'vitest';
import { retryImport, type RetrySettings } from '../../../web/src/lib/retryImport.js';

function fakeSettings(styles: boolean[] = []) {
  const calls: string[] = [];
  const settings: RetrySettings = {
    delaysMs: [10, 20, 40],
    sleep: async (ms) => void calls.push(`sleep ${ms}`),
    online: async () => void calls.push('online'),
    refetchStyles: async () => {
      const ok = styles.shift() ?? true;
      calls.push(`styles ${ok ? 'loaded' : 'failed'}`);
      return ok;
    },
  };
  return { settings, calls };
}

/** A loader that fails `times` times, then gives `value`; it records each call in `calls`. */
function flaky<T>(times: number, value: T, calls: string[]) {
  let n = 0;
  return async () => {
    calls.push('load');
    if (n++ < times) throw new Error(`fetch ${n} failed`);
    return value;
  };
}

describe('retryImport', () => {
  it('loads at once when the first fetch works', async () => {
    const { settings, calls } = fakeSettings();
    await expect(retryImport(flaky(0, 'module', calls), settings)).resolves.toBe('module');
    expect(calls).toEqual(['load']);
  });

  it('tries again after each failure, waiting longer each time, once online and with the failed styles fetched again', async () => {
    const { settings, calls } = fakeSettings();
    await expect(retryImport(flaky(2, 'module', calls), settings)).resolves.toBe('module');
    expect(calls).toEqual(['load', 'sleep 10', 'online', 'styles loaded', 'load', 'sleep 20', 'online', 'styles loaded', 'load']);
  });

  it('does not run the code while a stylesheet is still missing: that attempt waits for the next', async () => {
    const { settings, calls } = fakeSettings([false, true]);
    await expect(retryImport(flaky(1, 'module', calls), settings)).resolves.toBe('module');
    expect(calls).toEqual(['load', 'sleep 10', 'online', 'styles failed', 'sleep 20', 'online', 'styles loaded', 'load']);
  });

  it('gives up with the last failure once every wait is used', async () => {
    const { settings, calls } = fakeSettings();
    await expect(retryImport(flaky(10, 'module', calls), settings)).rejects.toThrow('fetch 4 failed');
    expect(calls.filter((c) => c === 'load')).toHaveLength(4);
    expect(calls.filter((c) => c.startsWith('sleep'))).toEqual(['sleep 10', 'sleep 20', 'sleep 40']);
  });
});

// The online sampler: a sample a minute, a day kept, a read window in minutes ending with now.
import { describe, expect, it } from 'vitest';
import { createOnlineSampler } from '../../../src/services/statsOnline.js';

function fakeClock(start = Date.parse('2026-12-07T10:00:00.000Z')) {
  let now = start;
  return { clock: () => new Date(now).toISOString(), advance: (ms: number) => void (now += ms) };
}

describe('online sampler', () => {
  it('keeps the newest samples only and reads the window asked for, ending with the counts now', async () => {
    const time = fakeClock();
    let online = 0;
    const sampler = createOnlineSampler({ clock: time.clock, count: async () => ({ online, total: 10 }), onError: () => undefined, keep: 3 });
    for (let i = 0; i < 5; i++) {
      online = i;
      await sampler.sample();
      time.advance(60_000);
    }
    online = 9;
    const all = await sampler.read(1440);
    expect(all.online).toEqual([2, 3, 4, 9]);
    expect(all.registered).toEqual([10, 10, 10, 10]);
    expect(all.known_from).toBe('2026-12-07T10:00:00.000Z');
    const recent = await sampler.read(2);
    expect(recent.times).toEqual(['2026-12-07T10:03:00.000Z', '2026-12-07T10:04:00.000Z', '2026-12-07T10:05:00.000Z']);
  });

  it('reports a failed sample and keeps sampling', async () => {
    const errors: unknown[] = [];
    let fail = true;
    const sampler = createOnlineSampler({
      clock: fakeClock().clock,
      count: async () => {
        if (fail) throw new Error('store down');
        return { online: 1, total: 1 };
      },
      onError: (err) => errors.push(err),
    });
    await expect(sampler.sample()).rejects.toThrow('store down');
    fail = false;
    await sampler.sample();
    expect((await sampler.read(60)).online).toEqual([1, 1]);
  });
});

// Metric families: fixed label sets (anything else counts as `other`), children bound once, a
// registry per hub, and no-op families when metrics are off.
import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { childrenByValue, createFactory, disabledFactory } from '../../../src/metrics/families.js';
import { createMetrics } from '../../../src/metrics/registry.js';
import { parseMetrics, valueOf } from '../../helpers/metrics.js';

async function samples(registry: Registry) {
  return parseMetrics(await registry.metrics());
}

describe('metric families', () => {
  it('counts label values outside the declared set as other, so input can never add series', async () => {
    const registry = new Registry();
    const factory = createFactory(registry);
    const frames = factory.counter({ name: 'hub_test_frames_total', help: 'h', labels: { type: ['CHAT', 'SYSTEM_LOG'] } });
    frames.labels({ type: 'CHAT' }).inc();
    frames.labels({ type: 'CHAT' }).inc(2);
    for (let i = 0; i < 100; i++) frames.labels({ type: `user-typed-${i}` }).inc();
    const s = await samples(registry);
    expect(valueOf(s, 'hub_test_frames_total', { type: 'CHAT' })).toBe(3);
    expect(valueOf(s, 'hub_test_frames_total', { type: 'other' })).toBe(100);
    expect([...s.keys()].filter((k) => k.startsWith('hub_test_frames_total'))).toHaveLength(2);
  });

  it('clamps each label of a multi-label family on its own', async () => {
    const registry = new Registry();
    const closes = createFactory(registry).counter({ name: 'hub_test_closes_total', help: 'h', labels: { role: ['AGENT'], code: ['1000', '4011'] } });
    closes.labels({ role: 'AGENT', code: 4011 }).inc();
    closes.labels({ role: 'AGENT', code: 3999 }).inc();
    closes.labels({ role: 'ROOT', code: 1000 }).inc();
    const s = await samples(registry);
    expect(valueOf(s, 'hub_test_closes_total', { role: 'AGENT', code: 4011 })).toBe(1);
    expect(valueOf(s, 'hub_test_closes_total', { role: 'AGENT', code: 'other' })).toBe(1);
    expect(valueOf(s, 'hub_test_closes_total', { role: 'other', code: 1000 })).toBe(1);
  });

  it('hands out the same pre-bound child for a value every time', () => {
    const gauge = createFactory(new Registry()).gauge({ name: 'hub_test_open', help: 'h', labels: { role: ['ADMIN', 'AGENT'] } });
    const byRole = childrenByValue(gauge, 'role', ['ADMIN', 'AGENT']);
    expect(byRole('ADMIN')).toBe(byRole('ADMIN'));
    expect(byRole('ADMIN')).toBe(gauge.labels({ role: 'ADMIN' }));
    expect(byRole('nobody')).toBe(gauge.labels({ role: 'other' }));
  });

  it('reads a collected gauge at scrape time, and observes histograms', async () => {
    const registry = new Registry();
    const factory = createFactory(registry);
    let depth = 7;
    const gauge = factory.gauge({ name: 'hub_test_depth', help: 'h', collect: () => gauge.set(depth) });
    const latency = factory.histogram({ name: 'hub_test_seconds', help: 'h', buckets: [0.1, 1] });
    latency.observe(0.5);
    expect(valueOf(await samples(registry), 'hub_test_depth')).toBe(7);
    depth = 3;
    const s = await samples(registry);
    expect(valueOf(s, 'hub_test_depth')).toBe(3);
    expect(valueOf(s, 'hub_test_seconds_bucket', { le: '0.1' })).toBe(0);
    expect(valueOf(s, 'hub_test_seconds_bucket', { le: '1' })).toBe(1);
  });

  it('refuses a name without the hub_ prefix and a family declared twice', () => {
    const factory = createFactory(new Registry());
    expect(() => factory.counter({ name: 'frames_total', help: 'h' })).toThrow('must be snake_case and start with hub_');
    factory.counter({ name: 'hub_once_total', help: 'h' });
    expect(() => factory.counter({ name: 'hub_once_total', help: 'h' })).toThrow('declared twice');
  });

  it('gives each hub its own registry, leaving prom-client’s global one empty', async () => {
    const a = createMetrics({ enabled: true });
    const b = createMetrics({ enabled: true });
    a.factory.counter({ name: 'hub_test_only_in_a_total', help: 'h' }).inc();
    expect(await a.render()).toContain('hub_test_only_in_a_total 1');
    expect(await b.render()).not.toContain('hub_test_only_in_a');
    const { register } = await import('prom-client');
    expect((await register.metrics()).trim()).toBe('');
  });

  it('records nothing when disabled, through the same calls', async () => {
    const off = createMetrics({ enabled: false });
    expect(off.factory).toBe(disabledFactory);
    const counter = off.factory.counter({ name: 'hub_x_total', help: 'h', labels: { a: ['1'] } });
    counter.labels({ a: '1' }).inc();
    off.factory.histogram({ name: 'hub_y_seconds', help: 'h', buckets: [1] }).observe(2);
    expect(await off.render()).toBe('');
  });
});

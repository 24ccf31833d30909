// The hub's metrics: one prom-client registry per hub, created by the composition root and passed
// to whoever records (never prom-client's global default registry, so two hubs in one process, as
// in the tests, keep their own figures). It also carries the process metrics prom-client collects
// by default, event-loop lag among them (nodejs_eventloop_lag_*).
import { collectDefaultMetrics, Registry } from 'prom-client';
import { createFactory, disabledFactory, type MetricsFactory } from './families.js';

export interface Metrics {
  readonly enabled: boolean;
  /** Declares families on this registry (no-ops when disabled). */
  readonly factory: MetricsFactory;
  /** The Content-Type of `render()`'s text. */
  readonly contentType: string;
  /** The Prometheus text exposition of every family. */
  render(): Promise<string>;
}

export function createMetrics(options: { enabled: boolean }): Metrics {
  if (!options.enabled) {
    return {
      enabled: false,
      factory: disabledFactory,
      contentType: 'text/plain; charset=utf-8',
      render: () => Promise.resolve(''),
    };
  }
  const registry = new Registry();
  // Event-loop delay sampled every 10 ms: fine enough for the percentiles, negligible in cost.
  collectDefaultMetrics({ register: registry, eventLoopMonitoringPrecision: 10 });
  return {
    enabled: true,
    factory: createFactory(registry),
    contentType: registry.contentType,
    render: () => registry.metrics(),
  };
}

// The chat-platform connector's metrics, taken from its log entries (each event in or out is logged
// once): events by direction and outcome, and entries at ERROR level.
import type { MetricsFactory } from '../metrics/families.js';

const INBOUND = ['accepted', 'filtered', 'duplicate', 'dropped', 'failed'];
const OUTBOUND = ['sent', 'failed', 'dropped'];

export interface ConnectorMeter {
  /** One connector log entry (`inbound_accepted`, `outbound_sent`, `verify`, …). */
  entry(level: string, action: string): void;
}

export function createConnectorMeter(factory: MetricsFactory): ConnectorMeter {
  const events = factory.counter({
    name: 'hub_connector_events_total',
    help: 'Chat-platform events: messages in (by what became of them) and answers out',
    labels: { direction: ['in', 'out'], outcome: [...new Set([...INBOUND, ...OUTBOUND])] },
  });
  const errors = factory.counter({
    name: 'hub_connector_errors_total',
    help: 'Connector log entries at ERROR level (platform refusals, failed sends, connection errors)',
  });
  return {
    entry(level, action) {
      if (level === 'ERROR') errors.inc();
      const [side, outcome] = action.split('_', 2) as [string, string | undefined];
      if (outcome === undefined) return;
      if (side === 'inbound' && INBOUND.includes(outcome)) events.labels({ direction: 'in', outcome }).inc();
      else if (side === 'outbound' && OUTBOUND.includes(outcome)) events.labels({ direction: 'out', outcome }).inc();
    },
  };
}

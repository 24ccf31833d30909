// The connector as GET /api/admin/actors shows it.
import type { ActorSnapshotView, InspectableSource } from '../ops/inspection.js';

/**
 * The chat-platform connector. Its lifecycle machine is pure and the store row is its truth, so
 * what is live is shown: `enabled` while a connector runs (its long connection's state, answers
 * queued for the platform), `idle` when none does (a draft, verified or disabled one, or none).
 */
export function connectorSource(connector: {
  status(): { connectorId: number | null; connection: string; queuedAnswers: number; identities: number };
}): InspectableSource {
  const view = (): ActorSnapshotView => {
    const s = connector.status();
    return {
      id: 'connector',
      kind: 'connector',
      state: s.connectorId === null ? 'idle' : 'enabled',
      status: 'active',
      context: { connector_id: s.connectorId, connection: s.connection, queued_answers: s.queuedAnswers, platform_identities: s.identities },
    };
  };
  return {
    name: 'connector',
    summary: () => {
      const { context, ...head } = view();
      return { ...head, ...context };
    },
    snapshot: (id) => (id === 'connector' ? view() : undefined),
  };
}

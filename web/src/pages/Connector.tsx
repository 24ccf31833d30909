// The chat-platform (Feishu/Lark) connector, for admins: its status at a glance, its lifecycle drawn
// from the hub's machine, its settings, the actions that move it along, and its log. The hub sends
// no live frames about the connector, so the page re-reads it after every action, on reconnect and
// on request; after enabling it re-reads a few times, briefly, until the connection is up.
import type { ConnectorView, MachineDescription } from '@hub/client';
import { useCallback, useEffect, useRef, useState } from 'react';
import { useHub } from '../app/context';
import { Button, Card, ErrorNote, Loading, PageHeader } from '../components/ui';
import { useRequest } from '../hooks/useRequest';
import { useStore } from '../lib/store';
import { ActionsPanel } from './connector/ActionsPanel';
import { ConnectorLog } from './connector/ConnectorLog';
import { LifecycleDiagram } from './connector/Diagram';
import { OutcomesChart } from './connector/OutcomesChart';
import { SettingsForm } from './connector/SettingsForm';
import { StatusStrip } from './connector/StatusStrip';
import { useConnectorForm } from './connector/useConnectorForm';
import { useMediaQuery } from './connector/useMediaQuery';
import './Connector.css';

/** Re-reads after enabling while the connection is not up yet: 0.5, 1, 2 and 4 seconds apart. */
const FOLLOW_READS = 4;

export default function Connector() {
  const { api } = useHub();
  const connector = useRequest(() => api.connector.get(), [api]);
  const machine = useRequest(() => api.connector.machine(), [api]);

  if (!connector.data) {
    return (
      <>
        <PageHeader title="Connector" />
        {connector.error ? <ErrorNote error={connector.error} retry={() => void connector.reload()} /> : <Loading what="the connector" />}
      </>
    );
  }
  return <ConnectorPage view={connector.data} reload={connector.reload} readError={connector.error} reading={connector.loading} machine={machine} />;
}

interface PageProps {
  view: ConnectorView;
  reload(): Promise<void>;
  readError: unknown;
  reading: boolean;
  machine: { data: MachineDescription | undefined; error: unknown; reload(): Promise<void> };
}

function ConnectorPage({ view, reload, readError, reading, machine }: PageProps) {
  const { live } = useHub();
  const form = useConnectorForm(view);
  const compact = useMediaQuery('(max-width: 760px)');
  const [logKey, setLogKey] = useState(0);
  const [traceId, setTraceId] = useState<string>();
  const [follow, setFollow] = useState(0);

  const refresh = useCallback(async () => {
    await reload();
    setLogKey((k) => k + 1);
  }, [reload]);

  // After a gap in the live connection, what was shown may be stale.
  const connections = useStore(live.connections);
  const firstConnections = useRef(connections);
  useEffect(() => {
    if (connections !== firstConnections.current) void refresh();
  }, [connections, refresh]);

  // Following the long connection coming up after enabling, a few reads at most.
  useEffect(() => {
    if (follow === 0) return;
    if (view.state !== 'enabled' || view.status === 'connected') {
      setFollow(0);
      return;
    }
    const timer = setTimeout(
      () => {
        setFollow((f) => Math.max(0, f - 1));
        void refresh();
      },
      500 * 2 ** (FOLLOW_READS - follow),
    );
    return () => clearTimeout(timer);
  }, [follow, view, refresh]);

  const afterAction = useCallback(
    async (after: { enabled?: boolean; traceId?: string }) => {
      if (after.traceId) setTraceId(after.traceId);
      await refresh();
      if (after.enabled) setFollow(FOLLOW_READS);
    },
    [refresh],
  );

  const current = view.id === 0 ? null : view.state;
  return (
    <div className="cx-page">
      <PageHeader title="Connector">
        <span className="muted">Feishu / Lark</span>
        <Button busy={reading} onClick={() => void refresh()}>
          Refresh
        </Button>
      </PageHeader>
      {readError ? <ErrorNote error={readError} retry={() => void refresh()} /> : null}
      <StatusStrip view={view} following={follow > 0} />
      <Card title="Lifecycle" className="cx-lifecycle">
        {machine.data ? (
          <LifecycleDiagram machine={machine.data} current={current} allowed={view.allowed_actions} compact={compact} />
        ) : machine.error ? (
          <ErrorNote error={machine.error} retry={() => void machine.reload()} />
        ) : (
          <Loading what="the lifecycle" />
        )}
      </Card>
      {view.id !== 0 ? <OutcomesChart refreshKey={logKey} /> : null}
      <div className="cx-columns">
        <SettingsForm form={form} onChanged={refresh} />
        <ActionsPanel view={view} unsaved={form.changed.length > 0} onDone={afterAction} />
      </div>
      {view.id !== 0 ? <ConnectorLog key={view.id} connectorId={view.id} refreshKey={logKey} traceId={traceId} /> : null}
    </div>
  );
}

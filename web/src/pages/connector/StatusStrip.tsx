// The connector at a glance: its state, whether the live connection to the platform is up, and
// when the platform last accepted its credentials.
import type { ConnectorView } from '@hub/client';
import { Badge, Card, Time } from '../../components/ui';
import { stateTone } from './hints';

export function StatusStrip({ view, following }: { view: ConnectorView; following: boolean }) {
  if (view.id === 0) {
    return (
      <Card className="cx-status">
        <p className="cx-status-none" data-testid="connector-status" data-state="none">
          <Badge>no connector</Badge> Nothing is connected to the chat platform yet. Create the connector below.
        </p>
      </Card>
    );
  }
  const connected = view.status === 'connected';
  return (
    <Card className="cx-status">
      <dl className="cx-status-list" data-testid="connector-status" data-state={view.state} data-status={view.status}>
        <div>
          <dt>Connector</dt>
          <dd>
            <strong>{view.connector_name || 'Unnamed'}</strong> <span className="muted">#{view.id}</span>
          </dd>
        </div>
        <div>
          <dt>State</dt>
          <dd>
            <Badge tone={stateTone(view.state)}>{view.state}</Badge>
          </dd>
        </div>
        <div>
          <dt>Connection</dt>
          <dd>
            <Badge tone={connected ? 'ok' : view.state === 'enabled' ? 'warn' : 'muted'} title={connected ? undefined : notConnectedWhy(view.state)}>
              {connected ? 'connected' : following ? 'connecting…' : 'not connected'}
            </Badge>
          </dd>
        </div>
        <div>
          <dt>Last verified</dt>
          <dd>
            <Time iso={view.last_verified_at} />
          </dd>
        </div>
        <div>
          <dt>Updated</dt>
          <dd>
            <Time iso={view.updated_at} />
          </dd>
        </div>
      </dl>
      {!connected && view.state === 'enabled' && !following ? <p className="cx-status-note muted">{notConnectedWhy(view.state)}</p> : null}
    </Card>
  );
}

function notConnectedWhy(state: string): string {
  if (state !== 'enabled') return 'The long connection to the platform runs only while the connector is enabled.';
  return 'Enabled, but the long connection to the platform is not up: it may be starting or retrying (the log says), or switched off on this hub (CHATPLATFORM_WS_ENABLED).';
}

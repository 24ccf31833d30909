// The WebSocket's state, always visible: connected, reconnecting (and when), or stopped with a way back.
import { useHub } from '../app/context';
import { useStore } from '../lib/store';

const LABEL: Record<string, string> = {
  open: 'Live',
  connecting: 'Connecting',
  probing: 'Connecting',
  waiting: 'Reconnecting',
  closing: 'Closing',
  stopped: 'Disconnected',
  idle: 'Not connected',
};

export function ConnectionIndicator() {
  const { live } = useHub();
  const status = useStore(live.status);
  const tone = status.state === 'open' ? 'ok' : status.state === 'stopped' ? 'bad' : 'warn';
  return (
    <div className={`conn conn-${tone}`} data-testid="connection" data-state={status.state} title={status.message}>
      <span className="conn-dot" aria-hidden />
      <span className="conn-label" role="status">
        {LABEL[status.state] ?? status.state}
      </span>
      {status.state === 'stopped' ? (
        <button type="button" className="btn btn-ghost btn-small" onClick={() => live.restart()}>
          Reconnect
        </button>
      ) : null}
    </div>
  );
}

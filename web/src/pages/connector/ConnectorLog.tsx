// The connector's own log, newest first: the first page on open and after every action (merged on
// top of what is loaded), older pages on request until the hub's cursor says there are none.
import type { ConnectorLogView } from '@hub/client';
import { useCallback, useEffect, useRef, useState } from 'react';
import { useHub } from '../../app/context';
import { Badge, Button, Card, Empty, ErrorNote, Loading, Time, toneOf } from '../../components/ui';
import { appendOlder, mergeNewest, type LogList } from './logPages';

interface Props {
  connectorId: number;
  /** Bumped by the page after every action: read the newest page again. */
  refreshKey: number;
  /** Entries of this trace (the last test message) are marked. */
  traceId?: string;
}

export function ConnectorLog({ connectorId, refreshKey, traceId }: Props) {
  const { api } = useHub();
  const [list, setList] = useState<LogList>();
  const [error, setError] = useState<unknown>();
  const [loading, setLoading] = useState(false);
  const [older, setOlder] = useState<'idle' | 'loading'>('idle');
  const [olderError, setOlderError] = useState<unknown>();
  // The page keys this on the connector; an answer arriving after that changed is dropped.
  const current = useRef(connectorId);
  current.current = connectorId;

  const readNewest = useCallback(async () => {
    setLoading(true);
    try {
      const page = await api.connector.logs(connectorId);
      if (current.current !== connectorId) return;
      setList((prev) => (prev ? mergeNewest(prev, page) : page));
      setError(undefined);
    } catch (err) {
      if (current.current === connectorId) setError(err);
    } finally {
      setLoading(false);
    }
  }, [api, connectorId]);

  useEffect(() => {
    void readNewest();
  }, [readNewest, refreshKey]);

  async function loadOlder() {
    if (!list || list.cursor === '') return;
    setOlder('loading');
    setOlderError(undefined);
    try {
      const page = await api.connector.logs(connectorId, { cursor: list.cursor });
      if (current.current === connectorId) setList((prev) => (prev ? appendOlder(prev, page) : page));
    } catch (err) {
      setOlderError(err);
    } finally {
      setOlder('idle');
    }
  }

  return (
    <Card
      title="Log"
      className="cx-log"
      actions={
        <Button className="btn-small" busy={loading} onClick={() => void readNewest()}>
          Refresh
        </Button>
      }
    >
      <ErrorNote error={error} retry={() => void readNewest()} />
      {!list ? (
        error ? null : (
          <Loading what="the log" />
        )
      ) : list.items.length === 0 ? (
        <Empty>Nothing logged yet. Verifying, enabling, test messages and the platform's messages are logged here.</Empty>
      ) : (
        <>
          <ol className="cx-log-list" aria-label="Connector log, newest first" data-testid="connector-log">
            {list.items.map((entry) => (
              <LogEntry key={entry.id} entry={entry} marked={traceId !== undefined && entry.trace_id === traceId} />
            ))}
          </ol>
          <div className="cx-log-foot">
            <ErrorNote error={olderError} retry={() => void loadOlder()} />
            {list.cursor !== '' ? (
              <Button busy={older === 'loading'} onClick={() => void loadOlder()}>
                Load older
              </Button>
            ) : (
              <span className="muted">The beginning of the log.</span>
            )}
          </div>
        </>
      )}
    </Card>
  );
}

function LogEntry({ entry, marked }: { entry: ConnectorLogView; marked: boolean }) {
  return (
    <li className={`cx-log-entry${marked ? ' cx-log-marked' : ''}`} data-action={entry.action} data-level={entry.level}>
      <div className="cx-log-meta">
        <Badge tone={toneOf(entry.level)}>{entry.level}</Badge>
        <span className="mono cx-log-action">{entry.action}</span>
        {marked ? <Badge tone="accent">last test message</Badge> : null}
        <span className="cx-log-time">
          <Time iso={entry.timestamp} />
        </span>
      </div>
      <p className="cx-log-detail">{entry.detail}</p>
      {entry.trace_id ? (
        <p className="cx-log-trace">
          trace <code>{entry.trace_id}</code>
        </p>
      ) : null}
    </li>
  );
}

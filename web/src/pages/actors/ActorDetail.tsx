// One actor's snapshot: kind, state and status, and its context as a tree. An actor that left the
// system (a closed socket's connection) says so, and its last snapshot stays on screen, marked.
import { HubRequestError, type ActorSnapshot } from '@hub/client';
import { useState } from 'react';
import { Link } from 'wouter';
import { Badge, Button, Card, CopyButton, ErrorNote, Loading } from '../../components/ui';
import { JsonTree } from './JsonTree';

export const isGone = (error: unknown) => error instanceof HubRequestError && error.status === 404;

export function ActorDetail({ id, data, error, retry }: { id: string; data: ActorSnapshot | undefined; error: unknown; retry(): void }) {
  // Expand or collapse everything: a new key remounts the tree with the new depth.
  const [view, setView] = useState({ depth: 2, key: 0 });
  const gone = isGone(error);
  return (
    <>
      {gone ? (
        <p className="notice actor-gone" role="status">
          {id} is not a live actor{data ? ' any more; below is its last snapshot' : ''}. A connection’s actor leaves the system when its socket closes.{' '}
          <Link href="/actors">See the live actors</Link>.
        </p>
      ) : (
        <ErrorNote error={error} retry={retry} />
      )}
      {data === undefined ? (
        error ? null : (
          <Loading what={`the snapshot of ${id}`} />
        )
      ) : (
        <div className={`actor-detail${gone ? ' actor-stale' : ''}`}>
          <Card title="Snapshot">
            <dl className="ac-facts" data-testid="actor-facts">
              <div className="ac-fact">
                <dt>kind</dt>
                <dd>{data.kind}</dd>
              </div>
              <div className="ac-fact">
                <dt>state</dt>
                <dd>
                  <Badge tone="info">{data.state}</Badge>
                </dd>
              </div>
              <div className="ac-fact">
                <dt>status</dt>
                <dd>
                  <Badge tone={data.status === 'active' ? 'ok' : data.status === 'error' ? 'bad' : 'warn'}>{data.status}</Badge>
                </dd>
              </div>
            </dl>
          </Card>
          <Card
            title="Context"
            actions={
              <div className="ac-tree-actions">
                <Button className="btn-small" onClick={() => setView((v) => ({ depth: Infinity, key: v.key + 1 }))}>
                  Expand all
                </Button>
                <Button className="btn-small" onClick={() => setView((v) => ({ depth: 1, key: v.key + 1 }))}>
                  Collapse all
                </Button>
                <CopyButton text={JSON.stringify(data, null, 2)} label="Copy JSON" />
              </div>
            }
          >
            <div data-testid="actor-context">
              <JsonTree key={view.key} name="context" value={data.context} openDepth={view.depth} />
            </div>
          </Card>
        </div>
      )}
    </>
  );
}

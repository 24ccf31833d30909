// Actors (admins): the hub's live actor system, read again every few seconds while the page is in
// view (the one view that polls: actor state has no frames), with each actor's snapshot a click away,
// the hub's sockets, commit queue and event-loop lag over the last hour, and (cluster mode) which
// node answered.
import { HubRequestError } from '@hub/client';
import { useState } from 'react';
import { Link, useParams } from 'wouter';
import { useHub } from '../app/context';
import { PageHeader } from '../components/ui';
import { useAutoRefresh } from '../hooks/useAutoRefresh';
import { ActorDetail, isGone } from './actors/ActorDetail';
import { ActorSummary } from './actors/ActorSummary';
import { nodeOf, type NodeInfo } from './actors/nodeInfo';
import { RuntimeCharts } from './actors/RuntimeCharts';
import { RefreshControls } from './actors/RefreshControls';
import './Actors.css';

const EVERY_MS = 3000;

export default function Actors() {
  const { actor } = useParams<{ actor?: string }>();
  // Kept while moving between the summary and a snapshot: the page stays mounted across both.
  const [paused, setPaused] = useState(false);
  return actor === undefined ? <Summary paused={paused} setPaused={setPaused} /> : <Detail key={actor} id={actor} paused={paused} setPaused={setPaused} />;
}

interface Controls {
  paused: boolean;
  setPaused(paused: boolean): void;
}

function Summary({ paused, setPaused }: Controls) {
  const { api } = useHub();
  const read = useAutoRefresh(() => api.admin.actors(), [api], { intervalMs: EVERY_MS, paused });
  const node = nodeOf(read.data as Record<string, unknown> | undefined);
  return (
    <div className="actors-page">
      <PageHeader title="Actors">
        <RefreshControls {...read} paused={paused} intervalMs={EVERY_MS} onPause={setPaused} onRefresh={read.refresh} />
      </PageHeader>
      {node ? <NodeLine node={node} /> : null}
      <RuntimeCharts paused={paused} everyMs={EVERY_MS} />
      <ActorSummary data={read.data} error={read.error} retry={read.refresh} />
    </div>
  );
}

function Detail({ id, paused, setPaused }: Controls & { id: string }) {
  const { api } = useHub();
  const [settled, setSettled] = useState(false);
  // An actor that has left does not come back, and a malformed id stays one: reading again would
  // only repeat the 404 or 400 (the button still can).
  const read = useAutoRefresh(() => api.admin.actor(id), [api, id], { intervalMs: EVERY_MS, paused: paused || settled });
  const nowSettled = isGone(read.error) || (read.error instanceof HubRequestError && read.error.status === 400);
  if (nowSettled !== settled) setSettled(nowSettled);
  return (
    <div className="actors-page">
      <nav aria-label="Breadcrumb" className="ac-breadcrumb">
        <Link href="/actors">Actors</Link>
        <span aria-hidden> / </span>
        <span aria-current="page" className="mono">
          {id}
        </span>
      </nav>
      <PageHeader title={id}>
        <RefreshControls {...read} paused={paused} intervalMs={EVERY_MS} onPause={setPaused} onRefresh={read.refresh} />
      </PageHeader>
      <ActorDetail id={id} data={read.data} error={read.error} retry={read.refresh} />
    </div>
  );
}

/** The hub node this page reads, in cluster mode (an answer without `node` shows nothing). */
function NodeLine({ node }: { node: NodeInfo }) {
  return (
    <p className="ac-node" data-testid="actors-node">
      Node <strong className="mono">{node.id}</strong>
      {node.cluster ? (node.leader === undefined ? ' in a cluster' : node.leader ? ', cluster leader' : ', cluster member') : ''}
      {node.peers && node.peers.length > 0 ? <span className="muted"> · peers: {node.peers.join(', ')}</span> : null}
    </p>
  );
}

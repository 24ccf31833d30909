// Overview: the agents with their live presence (PRESENCE frames through the session's agents store,
// no polling), counts by presence and status, Butler's state with pending approvals, and the user's
// oldest message still waiting for an answer.
import type { UserView } from '@hub/client';
import { useMemo } from 'react';
import { useHub } from '../app/context';
import { Badge, Card, ErrorNote, Loading, PageHeader } from '../components/ui';
import { useStore } from '../lib/store';
import { isButler } from '../state/agents';
import { AgentList } from './overview/AgentList';
import { countPresence } from './overview/agents';
import { ButlerCard } from './overview/ButlerCard';
import { WaitingCard } from './overview/WaitingCard';
import './Overview.css';

export default function Overview() {
  const { agents: store, session } = useHub();
  const { byId, loaded, error } = useStore(store.state);
  const admin = useStore(session.current)?.user.role === 'ADMIN';
  const agents = useMemo(() => [...byId.values()].filter((u) => !isButler(u)), [byId]);
  const butler = useMemo(() => [...byId.values()].find(isButler), [byId]);

  return (
    <div className="overview">
      <PageHeader title="Overview" />
      <ErrorNote error={error} retry={() => void store.reload()} />
      {!loaded && !error ? (
        <Loading what="agents" />
      ) : loaded ? (
        <>
          <div className="overview-cards">
            <PresenceCard agents={agents} />
            <ButlerCard butler={butler} admin={admin} />
            <WaitingCard users={byId} />
          </div>
          <AgentList agents={agents} admin={admin} />
        </>
      ) : null}
    </div>
  );
}

function Count({ n, label, testId, ok }: { n: number; label: string; testId: string; ok?: boolean }) {
  return (
    <div className={`overview-count${ok ? ' ok' : ''}`}>
      <span className="overview-number" data-testid={testId}>
        {n}
      </span>
      <span>{label}</span>
    </div>
  );
}

function PresenceCard({ agents }: { agents: readonly UserView[] }) {
  const counts = useMemo(() => countPresence(agents), [agents]);
  return (
    <Card className="overview-presence" title="Presence">
      <div className="overview-counts">
        <Count n={counts.online} label="online" testId="count-online" ok />
        <Count n={counts.offline} label="offline" testId="count-offline" />
        <Count n={counts.total} label="registered" testId="count-total" />
      </div>
      {counts.byStatus.length > 0 ? (
        <div className="overview-statuses" aria-label="Agents by status" data-testid="count-by-status">
          {counts.byStatus.map(([status, n]) => (
            <Badge key={status} tone={status === 'ONLINE' ? 'ok' : status === 'OFFLINE' ? 'muted' : 'info'}>
              {status} {n}
            </Badge>
          ))}
        </div>
      ) : null}
    </Card>
  );
}

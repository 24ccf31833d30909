// Overview: the agents with their live presence (PRESENCE frames through the session's agents store,
// no polling), counts by presence and status, Butler's state with pending approvals, the user's
// oldest message still waiting for an answer, and pictures from the hub's series: messages per
// minute and online spans per agent, reports of the last day tallied.
import type { ReportTallies, UserView } from '@hub/client';
import { useMemo } from 'react';
import { useHub } from '../app/context';
import { Tally } from '../components/charts/Small';
import { Fresh } from '../components/Freshness';
import { Badge, Card, ErrorNote, Loading, PageHeader } from '../components/ui';
import { useStore } from '../lib/store';
import { isButler } from '../state/agents';
import { AgentList } from './overview/AgentList';
import { countPresence } from './overview/agents';
import { ButlerCard } from './overview/ButlerCard';
import { useActivity } from './overview/useActivity';
import { WaitingCard } from './overview/WaitingCard';
import './Overview.css';

export default function Overview() {
  const { agents: store, session } = useHub();
  const { byId, loaded, error } = useStore(store.state);
  const admin = useStore(session.current)?.user.role === 'ADMIN';
  const agents = useMemo(() => [...byId.values()].filter((u) => !isButler(u)), [byId]);
  const butler = useMemo(() => [...byId.values()].find(isButler), [byId]);
  const activity = useActivity();

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
            <ReportsCard tallies={activity.reports.data} error={activity.reports.error} retry={activity.reports.reload} />
          </div>
          <ErrorNote error={activity.rate.error ?? activity.presence.error} retry={activity.rate.reload} />
          <AgentList agents={agents} admin={admin} rates={activity.rates} strips={activity.strips} />
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
      <Fresh what="Presence">
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
      </Fresh>
    </Card>
  );
}

const LEVEL_TONES: Record<string, string> = { ERROR: '--bad', WARNING: '--warn', SUCCESS: '--ok', INFO: '--info' };
const VERDICT_TONES: Record<string, string> = { approve: '--ok', comment: '--info', request_changes: '--warn' };
const SEVERITY_TONES: Record<string, string> = { critical: '--bad', high: '--bad', medium: '--warn', low: '--info' };
const toneFrom = (tones: Record<string, string>) => (key: string) => tones[key] ?? '--muted';

/** The last day's reports by level, verdict and severity, as small tallies. */
function ReportsCard({ tallies, error, retry }: { tallies: ReportTallies | undefined; error: unknown; retry(): void }) {
  return (
    <Card className="overview-reports" title="Reports, last 24 hours">
      {error && !tallies ? (
        <ErrorNote error={error} retry={retry} />
      ) : !tallies ? (
        <Loading what="the tallies" />
      ) : (
        <div className="overview-tallies">
          <div>
            <h3>Logs by level</h3>
            <Tally counts={tallies.levels} tone={toneFrom(LEVEL_TONES)} testId="tally-levels" label="Logs by level" />
          </div>
          <div>
            <h3>Code reviews by verdict</h3>
            <Tally counts={tallies.verdicts} tone={toneFrom(VERDICT_TONES)} testId="tally-verdicts" label="Code reviews by verdict" />
          </div>
          <div>
            <h3>Security alerts by severity</h3>
            <Tally counts={tallies.severities} tone={toneFrom(SEVERITY_TONES)} testId="tally-severities" label="Security alerts by severity" />
          </div>
        </div>
      )}
    </Card>
  );
}

// Overview: counts by presence and status and agents online over time (the hub's counts and series,
// read again as PRESENCE frames arrive), the agents a page at a time as the hub searches them (live
// presence on the rows on screen), Butler's state with pending approvals, the user's oldest message
// still waiting for an answer, messages per minute per agent on screen, reports of the last day
// tallied. Nothing here grows with the roster: 100k agents draw as few rows and numbers as 10.
import type { AgentCounts, OnlineSeries, ReportTallies } from '@hub/client';
import { useMemo } from 'react';
import { useHub } from '../app/context';
import { Tally } from '../components/charts/Small';
import { Fresh } from '../components/Freshness';
import { Badge, Card, ErrorNote, Loading, PageHeader } from '../components/ui';
import { useStore } from '../lib/store';
import { OnlineChart } from '../components/roster/OnlineChart';
import { ONLINE_MINUTES, useOnlineSeries, useRosterCounts } from '../hooks/useRoster';
import { isButler } from '../state/agents';
import { AgentList } from './overview/AgentList';
import { ButlerCard } from './overview/ButlerCard';
import { useActivity } from './overview/useActivity';
import { WaitingCard } from './overview/WaitingCard';
import './Overview.css';

export default function Overview() {
  const { agents: store, session } = useHub();
  const { byId, error } = useStore(store.state);
  const admin = useStore(session.current)?.user.role === 'ADMIN';
  const butler = useMemo(() => [...byId.values()].find(isButler), [byId]);
  const counts = useRosterCounts();
  const online = useOnlineSeries();
  const activity = useActivity();

  return (
    <div className="overview">
      <PageHeader title="Overview" />
      <ErrorNote error={error} retry={() => void store.reload()} />
      <div className="overview-cards">
        <PresenceCard counts={counts.data} error={counts.error} retry={counts.reload} />
        <OnlineCard series={online.data} error={online.error} retry={online.reload} />
        <ButlerCard butler={butler} admin={admin} />
        <WaitingCard users={byId} />
        <ReportsCard tallies={activity.reports.data} error={activity.reports.error} retry={activity.reports.reload} />
      </div>
      <ErrorNote error={activity.rate.error} retry={activity.rate.reload} />
      <AgentList admin={admin} registered={counts.data?.total} rates={activity.rates} />
    </div>
  );
}

function Count({ n, label, testId, ok }: { n: number; label: string; testId: string; ok?: boolean }) {
  return (
    <div className={`overview-count${ok ? ' ok' : ''}`}>
      <span className="overview-number" data-testid={testId}>
        {n.toLocaleString('en-US')}
      </span>
      <span>{label}</span>
    </div>
  );
}

function PresenceCard({ counts, error, retry }: { counts: AgentCounts | undefined; error: unknown; retry(): void }) {
  return (
    <Card className="overview-presence" title="Presence">
      {error && !counts ? (
        <ErrorNote error={error} retry={retry} />
      ) : !counts ? (
        <Loading what="the counts" />
      ) : (
        <Fresh what="Presence">
          <div className="overview-counts">
            <Count n={counts.online} label="online" testId="count-online" ok />
            <Count n={counts.offline} label="offline" testId="count-offline" />
            <Count n={counts.total} label="registered" testId="count-total" />
          </div>
          {counts.by_status.length > 0 ? (
            <div className="overview-statuses" aria-label="Agents by status" data-testid="count-by-status">
              {counts.by_status.map(({ status, count }) => (
                <Badge key={status} tone={status === 'ONLINE' ? 'ok' : status === 'OFFLINE' ? 'muted' : 'info'}>
                  {status} {count.toLocaleString('en-US')}
                </Badge>
              ))}
            </div>
          ) : null}
        </Fresh>
      )}
    </Card>
  );
}

/** Agents online over the last hours: one line, whatever the roster's size. */
function OnlineCard({ series, error, retry }: { series: OnlineSeries | undefined; error: unknown; retry(): void }) {
  return (
    <Card className="overview-online" title={`Online, last ${ONLINE_MINUTES / 60} hours`}>
      {error && !series ? (
        <ErrorNote error={error} retry={retry} />
      ) : !series ? (
        <Loading what="the series" />
      ) : (
        <Fresh what="Online">
          <OnlineChart series={series} />
          <p className="muted overview-known-from">Sampled by the hub once a minute since {new Date(series.known_from).toLocaleString()}.</p>
        </Fresh>
      )}
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

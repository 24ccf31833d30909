// The agents, a page at a time as the hub searches and pages them (never the whole roster): each
// with its live presence, last report and last seen, and its messages per minute over the last hour
// (a sparkline); each opens its chat. While the socket is away, presence reads "as of" the moment it went.
import type { UserView } from '@hub/client';
import { Link } from 'wouter';
import { Sparkline } from '../../components/charts/Small';
import { AsOf, useStaleSince } from '../../components/Freshness';
import { Pager, RosterSearch } from '../../components/roster/RosterControls';
import { Badge, Card, Empty, ErrorNote, Time } from '../../components/ui';
import { useRosterFilters, useRosterPage } from '../../hooks/useRoster';
import { isMarker, reportText } from '../../lib/reportText';
import { reportCount } from './agents';
import { RATE_MINUTES } from './useActivity';

/** Rows on one page: what fits a screen or two. */
export const OVERVIEW_PAGE = 20;

export interface AgentListProps {
  admin: boolean;
  /** Agents registered (the counts' total), to tell an empty roster from a search that found nothing. */
  registered: number | undefined;
  /** Messages per minute over the last hour, by username. */
  rates?: ReadonlyMap<string, readonly number[]>;
}

export function AgentList({ admin, registered, rates }: AgentListProps) {
  const stale = useStaleSince();
  const filters = useRosterFilters();
  const { q, status, page, settledQ } = filters;
  const roster = useRosterPage({ q: settledQ, status, page, limit: OVERVIEW_PAGE });
  const filtered = settledQ !== '' || status !== '';

  return (
    <Card
      className="overview-agents"
      title={<span data-testid="agents-title">{`Agents (${roster.total.toLocaleString('en-US')}${filtered ? ' matching' : ''})`}</span>}
      actions={<RosterSearch q={q} status={status} onQ={filters.onQ} onStatus={filters.onStatus} />}
    >
      <ErrorNote error={roster.error} retry={roster.reload} />
      {registered === 0 && !filtered && roster.items.length === 0 ? (
        <Empty>
          No agents are registered yet.{' '}
          {admin ? (
            <>
              Register one on the <Link href="/agents">Agents</Link> page; it shows up here, live, when it connects with its token.
            </>
          ) : (
            'An admin registers agents; they show up here, live, when they connect.'
          )}
        </Empty>
      ) : roster.items.length === 0 && !roster.loading ? (
        <Empty>
          No agent matches{settledQ ? ` “${settledQ}”` : ''}
          {status ? ` (${status.toLowerCase()})` : ''}.
        </Empty>
      ) : (
        <ul className="agent-list" aria-busy={roster.loading}>
          {roster.items.map((agent) => (
            <AgentRow key={agent.id} agent={agent} rate={rates?.get(agent.username)} stale={stale} />
          ))}
        </ul>
      )}
      <Pager page={page} limit={OVERVIEW_PAGE} total={roster.total} onPage={filters.onPage} loading={roster.loading} />
    </Card>
  );
}

const NO_MESSAGES: readonly number[] = new Array<number>(RATE_MINUTES).fill(0);

function AgentRow({ agent, rate, stale }: { agent: UserView; rate?: readonly number[]; stale: number | undefined }) {
  const total = (rate ?? NO_MESSAGES).reduce((a, b) => a + b, 0);
  const extraStatus = agent.status && agent.status !== 'ONLINE' && agent.status !== 'OFFLINE' ? agent.status : undefined;
  return (
    <li className={`agent-row${stale ? ' is-stale' : ''}`} data-testid="agent-row" data-agent={agent.username} data-online={agent.online}>
      <div className="agent-name">
        <span className={`presence-dot ${agent.online ? 'on' : 'off'}`} aria-hidden />
        <div>
          <Link href={`/chat/${agent.id}`} className="agent-link">
            {agent.username}
          </Link>
          <div className="muted agent-kind">{[agent.agent_kind, agent.runtime_kind].filter(Boolean).join(' · ') || 'agent'}</div>
        </div>
      </div>
      <div className="agent-presence">
        <Badge tone={agent.online ? 'ok' : 'muted'}>{agent.online ? 'Online' : 'Offline'}</Badge>
        {extraStatus ? <Badge tone="info">{extraStatus}</Badge> : null}
      </div>
      <div className="agent-charts">
        {/* Logs and reports, which every user sees; chat is counted nowhere a user could see another's. */}
        <span className="overview-label" data-testid="agent-rate-label" title="Logs and reports per minute (chat is not counted)">
          Last hour: {reportCount(total)}
        </span>
        <Sparkline
          values={rate ?? NO_MESSAGES}
          label={`${agent.username}: ${reportCount(total)} in the last hour`}
          testId="agent-rate"
          width={140}
          height={24}
        />
      </div>
      <div className="agent-report" title={agent.last_report ?? undefined}>
        <span className="overview-label">Last report</span>
        {agent.last_report ? (
          <span className="agent-report-text">
            {reportText(agent.last_report)}
            {isMarker(agent.last_report) && agent.last_seen_at ? (
              <>
                {' '}
                <Time iso={agent.last_seen_at} />
              </>
            ) : null}
          </span>
        ) : (
          <span className="muted">none yet</span>
        )}
      </div>
      <div className="agent-seen">
        <span className="overview-label">Last seen</span>
        {agent.online && !stale ? <span>now</span> : agent.online ? <AsOf since={stale!} /> : <Time iso={agent.last_seen_at} />}
      </div>
      <div className="agent-actions">
        <Link href={`/chat/${agent.id}`} className="btn btn-small" aria-label={`Chat with ${agent.username}`}>
          Chat
        </Link>
        <Link href={`/feed?agent=${encodeURIComponent(agent.username)}`} className="btn btn-small btn-ghost" aria-label={`Logs of ${agent.username}`}>
          Logs
        </Link>
      </div>
    </li>
  );
}

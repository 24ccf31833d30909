// Every agent with its live presence, last report and last seen, its messages per minute over the
// last hour (a sparkline) and its online spans over the last hours (a strip); each opens its chat. A
// search box appears once there are enough agents to need one. While the socket is away, presence
// reads "as of" the moment it went.
import type { UserView } from '@hub/client';
import { useDeferredValue, useMemo, useState } from 'react';
import { Link } from 'wouter';
import { PresenceStrip, Sparkline } from '../../components/charts/Small';
import { AsOf, useStaleSince } from '../../components/Freshness';
import { Badge, Card, Empty, Time } from '../../components/ui';
import { isMarker, reportText } from '../../lib/reportText';
import { matchesAgent, reportCount, sortAgents } from './agents';
import { RATE_MINUTES, STRIP_HOURS, type Strip } from './useActivity';

/** More agents than this get a search box. */
const SEARCH_FROM = 8;

export interface AgentListProps {
  agents: readonly UserView[];
  admin: boolean;
  /** Messages per minute over the last hour, by username. */
  rates?: ReadonlyMap<string, readonly number[]>;
  strips?: ReadonlyMap<number, Strip>;
}

export function AgentList({ agents, admin, rates, strips }: AgentListProps) {
  const stale = useStaleSince();
  const [query, setQuery] = useState('');
  const deferred = useDeferredValue(query);
  const sorted = useMemo(() => sortAgents(agents), [agents]);
  const shown = useMemo(() => sorted.filter((a) => matchesAgent(a, deferred)), [sorted, deferred]);
  const searchable = agents.length > SEARCH_FROM;

  return (
    <Card
      className="overview-agents"
      title={`Agents (${agents.length})`}
      actions={
        searchable ? (
          <label className="overview-search">
            <span className="sr-only">Search agents</span>
            <input type="search" placeholder="Search agents" value={query} onChange={(e) => setQuery(e.target.value)} />
          </label>
        ) : null
      }
    >
      {agents.length === 0 ? (
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
      ) : shown.length === 0 ? (
        <Empty>No agent matches “{deferred}”.</Empty>
      ) : (
        <ul className="agent-list">
          {shown.map((agent) => (
            <AgentRow key={agent.id} agent={agent} rate={rates?.get(agent.username)} strip={strips?.get(agent.id)} stale={stale} />
          ))}
        </ul>
      )}
    </Card>
  );
}

const NO_MESSAGES: readonly number[] = new Array<number>(RATE_MINUTES).fill(0);

function AgentRow({ agent, rate, strip, stale }: { agent: UserView; rate?: readonly number[]; strip?: Strip; stale: number | undefined }) {
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
        {strip ? <PresenceStrip {...strip} label={`${agent.username}: online spans over the last ${STRIP_HOURS} hours`} testId="agent-strip" /> : null}
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

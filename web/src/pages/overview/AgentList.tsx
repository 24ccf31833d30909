// Every agent with its live presence, last report and last seen; each opens its chat. A search box
// appears once there are enough agents to need one.
import type { UserView } from '@hub/client';
import { useDeferredValue, useMemo, useState } from 'react';
import { Link } from 'wouter';
import { Badge, Card, Empty, Time } from '../../components/ui';
import { matchesAgent, sortAgents } from './agents';

/** More agents than this get a search box. */
const SEARCH_FROM = 8;

export function AgentList({ agents, admin }: { agents: readonly UserView[]; admin: boolean }) {
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
            <AgentRow key={agent.id} agent={agent} />
          ))}
        </ul>
      )}
    </Card>
  );
}

function AgentRow({ agent }: { agent: UserView }) {
  const extraStatus = agent.status && agent.status !== 'ONLINE' && agent.status !== 'OFFLINE' ? agent.status : undefined;
  return (
    <li className="agent-row" data-testid="agent-row" data-agent={agent.username} data-online={agent.online}>
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
      <div className="agent-report" title={agent.last_report ?? undefined}>
        <span className="overview-label">Last report</span>
        {agent.last_report ? <span className="agent-report-text">{agent.last_report}</span> : <span className="muted">none yet</span>}
      </div>
      <div className="agent-seen">
        <span className="overview-label">Last seen</span>
        {agent.online ? <span>now</span> : <Time iso={agent.last_seen_at} />}
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

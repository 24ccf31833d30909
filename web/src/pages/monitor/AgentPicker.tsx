// The agents whose conversation with Butler can be watched: presence, what arrived unseen, and
// when each last spoke with Butler in this session.
import type { UserView } from '@hub/client';
import { useId, useMemo, useState } from 'react';
import { Link } from 'wouter';
import { Empty } from '../../components/ui';
import { useAgentSearch } from '../../hooks/useAgentSearch';
import type { Conversation } from '../../state/monitor';

interface Props {
  agents: readonly UserView[];
  selected: number | undefined;
  conversations: ReadonlyMap<number, Conversation>;
  unseen: ReadonlyMap<number, number>;
}

/** A filter box only when the list is long enough to need one. */
const FILTER_FROM = 8;

export function AgentPicker({ agents, selected, conversations, unseen }: Props) {
  const [query, setQuery] = useState('');
  const partial = useAgentSearch(query);
  const filterId = useId();
  const shown = useMemo(() => {
    const q = query.trim().toLowerCase();
    return agents
      .filter((a) => !q || a.username.toLowerCase().includes(q))
      .sort((a, b) => Number(b.online) - Number(a.online) || a.username.localeCompare(b.username));
  }, [agents, query]);

  return (
    <nav className="mon-picker card" aria-label="Agents to monitor">
      {agents.length >= FILTER_FROM ? (
        <>
          <label htmlFor={filterId} className="sr-only">
            Filter agents
          </label>
          <input id={filterId} type="search" className="mon-filter" placeholder="Filter agents…" value={query} onChange={(e) => setQuery(e.target.value)} />
        </>
      ) : null}
      {partial && !query.trim() ? <p className="mon-hint muted">{partial}</p> : null}
      {agents.length === 0 ? (
        <Empty>
          No agents yet. <Link href="/agents">Register one</Link>; its conversations with Butler show here.
        </Empty>
      ) : shown.length === 0 ? (
        <Empty>No agent matches “{query}”.</Empty>
      ) : (
        <ul>
          {shown.map((agent) => {
            const count = unseen.get(agent.id) ?? 0;
            const last = conversations.get(agent.id)?.entries.at(-1);
            return (
              <li key={agent.id}>
                <Link href={`/monitor/${agent.id}`} className={agent.id === selected ? 'active' : ''} aria-current={agent.id === selected ? 'page' : undefined}>
                  <span className={`mon-dot${agent.online ? ' on' : ''}`} title={agent.online ? 'online' : 'offline'} aria-hidden />
                  <span className="mon-picker-name">
                    {agent.username}
                    <span className="sr-only">{agent.online ? ', online' : ', offline'}</span>
                    {last ? (
                      <span className="mon-picker-last">
                        {last.kind === 'agent' ? 'answered' : 'Butler wrote'} {new Date(last.timestamp).toLocaleTimeString()}
                      </span>
                    ) : null}
                  </span>
                  {count > 0 ? (
                    <span className="badge badge-accent" data-testid="unseen">
                      {count}
                      <span className="sr-only"> new</span>
                    </span>
                  ) : null}
                </Link>
              </li>
            );
          })}
        </ul>
      )}
    </nav>
  );
}

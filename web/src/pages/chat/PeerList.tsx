// Who the user can chat with: Butler first, then the agents, online ones first, each with its live
// presence (PRESENCE frames through the agents store) and its unread count. A filter appears once the
// list is long.
import type { UserView } from '@hub/client';
import { useMemo, useState } from 'react';
import { Link } from 'wouter';
import { useHub } from '../../app/context';
import { ErrorNote, Loading } from '../../components/ui';
import { useAgentSearch } from '../../hooks/useAgentSearch';
import { useStore } from '../../lib/store';
import { isButler } from '../../state/agents';
import { unreadByPeer } from '../../state/chat';

/** Past this many peers, a filter box helps. */
const FILTER_FROM = 8;

export function peerLabel(user: UserView): string {
  return isButler(user) ? 'Butler' : user.username;
}

export function PeerList({ selectedId, onPick }: { selectedId: number; onPick(): void }) {
  const { agents, chat } = useHub();
  const { byId, loaded, error } = useStore(agents.state);
  const unread = unreadByPeer(useStore(chat.state));
  const [filter, setFilter] = useState('');
  const partial = useAgentSearch(filter);

  const peers = useMemo(
    () =>
      [...byId.values()].sort(
        (a, b) => Number(isButler(b)) - Number(isButler(a)) || Number(b.online) - Number(a.online) || a.username.localeCompare(b.username),
      ),
    [byId],
  );
  const needle = filter.trim().toLowerCase();
  const shown = needle ? peers.filter((p) => p.username.toLowerCase().includes(needle) || (p.description ?? '').toLowerCase().includes(needle)) : peers;

  return (
    <section className="chat-peers" aria-labelledby="peers-title">
      <div className="chat-pane-head">
        <h2 id="peers-title">Chat with</h2>
      </div>
      <ErrorNote error={error} retry={() => void agents.reload()} />
      {!loaded && !error ? <Loading what="agents" /> : null}
      {peers.length > FILTER_FROM ? (
        <>
          <label className="sr-only" htmlFor="peer-filter">
            Filter agents
          </label>
          <input
            id="peer-filter"
            type="search"
            className="chat-filter"
            placeholder="Filter agents"
            value={filter}
            onChange={(e) => setFilter(e.target.value)}
          />
        </>
      ) : null}
      {partial && !filter.trim() ? <p className="chat-hint">{partial}</p> : null}
      {loaded && peers.length === 1 ? <p className="chat-hint">No agents are registered yet; an admin adds them on the Agents page.</p> : null}
      {needle && shown.length === 0 ? <p className="chat-hint">No agent matches “{filter}”.</p> : null}
      <ul className="chat-list" aria-label="Peers">
        {shown.map((p) => {
          const count = unread.get(p.id) ?? 0;
          const selected = p.id === selectedId;
          return (
            <li key={p.id}>
              <Link
                href={`/chat/${p.id}`}
                className={`chat-row${selected ? ' selected' : ''}`}
                aria-current={selected ? 'page' : undefined}
                onClick={onPick}
                data-testid="peer"
              >
                <span className={`presence ${p.online ? 'presence-on' : 'presence-off'}`} title={p.online ? 'Online' : 'Offline'} aria-hidden />
                <span className="chat-row-main">
                  <span className="chat-row-title">{peerLabel(p)}</span>
                  <span className="chat-row-sub">
                    {p.online ? 'online' : 'offline'}
                    {isButler(p) ? ' · assistant' : p.agent_kind ? ` · ${p.agent_kind}` : ''}
                  </span>
                </span>
                {count > 0 ? (
                  <span className="badge badge-accent" aria-label={`${count} unread`} data-testid="unread">
                    {count}
                  </span>
                ) : null}
              </Link>
            </li>
          );
        })}
      </ul>
    </section>
  );
}

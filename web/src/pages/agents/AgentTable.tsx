// The registered agents with live presence (PRESENCE frames through the agents store), what they
// are, their token's hint and age, and the actions on each. Butler is listed but not editable: it
// runs inside the hub.
import type { UserView } from '@hub/client';
import { useId, useMemo, useState } from 'react';
import { Link } from 'wouter';
import { Badge, Button, Card, CopyButton, Empty, Time } from '../../components/ui';
import { isButler } from '../../state/agents';
import { countPresence } from '../overview/agents';

interface Props {
  agents: readonly UserView[];
  onRegister(): void;
  onRotate(agent: UserView): void;
  onDelete(agent: UserView): void;
}

/** Butler first, then who is online, then by name. */
function order(a: UserView, b: UserView): number {
  return Number(isButler(b)) - Number(isButler(a)) || Number(b.online) - Number(a.online) || a.username.localeCompare(b.username);
}

function matches(agent: UserView, query: string): boolean {
  if (!query) return true;
  const q = query.toLowerCase();
  return [agent.username, agent.description, agent.agent_kind, agent.runtime_kind, String(agent.id)].some((v) => v?.toLowerCase().includes(q));
}

export function AgentTable({ agents, onRegister, onRotate, onDelete }: Props) {
  const [query, setQuery] = useState('');
  const search = useId();
  const shown = useMemo(() => agents.filter((a) => matches(a, query.trim())).sort(order), [agents, query]);
  // Counted as the Overview counts them: registered agents, Butler (listed, always online) not among them.
  const counts = useMemo(() => countPresence(agents.filter((a) => !isButler(a))), [agents]);
  const registered = counts.total;

  return (
    <Card
      title={
        <>
          Registered agents{' '}
          <span className="muted ag-count" data-testid="agents-count" data-online={counts.online} data-total={counts.total}>
            {`${counts.total} registered · ${counts.online} online (Butler not counted)`}
          </span>
        </>
      }
      actions={
        <div className="agents-search">
          <label htmlFor={search} className="sr-only">
            Filter agents
          </label>
          <input id={search} type="search" placeholder="Filter by name, kind…" value={query} onChange={(e) => setQuery(e.target.value)} />
        </div>
      }
    >
      {shown.length === 0 ? (
        <Empty>No agent matches “{query}”.</Empty>
      ) : (
        <table className="agents-table">
          <thead>
            <tr>
              <th scope="col">Agent</th>
              <th scope="col">Presence</th>
              <th scope="col">Last seen</th>
              <th scope="col">Token</th>
              <th scope="col">
                <span className="sr-only">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {shown.map((agent) => (
              <AgentRow key={agent.id} agent={agent} onRotate={onRotate} onDelete={onDelete} />
            ))}
          </tbody>
        </table>
      )}
      {registered === 0 ? (
        <Empty>
          No agents are registered yet.{' '}
          <button type="button" className="link" onClick={onRegister}>
            Register the first one
          </button>
          ; its token is shown once.
        </Empty>
      ) : null}
    </Card>
  );
}

/** The A2A card of an agent on this hub (Butler's is the hub's own card). */
function cardUrlOf(agent: UserView): string {
  const origin = window.location.origin;
  return isButler(agent) ? `${origin}/.well-known/agent-card.json` : `${origin}/a2a/agents/${encodeURIComponent(agent.username)}/.well-known/agent-card.json`;
}

function AgentRow({ agent, onRotate, onDelete }: { agent: UserView; onRotate(a: UserView): void; onDelete(a: UserView): void }) {
  const nameId = `agent-name-${agent.id}`;
  const butler = isButler(agent);
  return (
    <tr data-testid={`agent-${agent.username}`}>
      <td data-label="Agent">
        <div className="agent-name">
          <strong id={nameId}>{agent.username}</strong>
          <span className="muted mono">#{agent.id}</span>
          {butler ? <Badge tone="info">core</Badge> : null}
          {agent.agent_kind ? <Badge>{agent.agent_kind}</Badge> : null}
          {agent.runtime_kind === 'a2a' ? (
            <Badge tone="info" title="a remote A2A agent, registered by its card URL: the hub calls it">
              remote A2A
            </Badge>
          ) : agent.runtime_kind ? (
            <Badge>{agent.runtime_kind}</Badge>
          ) : null}
        </div>
        {agent.description ? <div className="muted agent-description">{agent.description}</div> : null}
        <div className="agent-card-url">
          <code className="muted ag-small" title="its A2A agent card: any A2A client reaches it from here">
            {cardUrlOf(agent)}
          </code>{' '}
          <CopyButton text={cardUrlOf(agent)} label="Copy card URL" />
        </div>
      </td>
      <td data-label="Presence">
        <div>
          <Badge tone={agent.online ? 'ok' : 'muted'}>
            <span className={`ag-dot${agent.online ? ' on' : ''}`} aria-hidden />
            {agent.online ? 'online' : 'offline'}
          </Badge>
          {agent.status && agent.status !== 'ONLINE' && agent.status !== 'OFFLINE' ? (
            <span className="muted agent-status"> {agent.status.toLowerCase()}</span>
          ) : null}
          {agent.last_report ? (
            <div className="muted agent-report" title={agent.last_report}>
              {agent.last_report}
            </div>
          ) : null}
        </div>
      </td>
      <td data-label="Last seen">{agent.online ? <span>now</span> : <Time iso={agent.last_seen_at} />}</td>
      <td data-label="Token">
        <div>
          {agent.token_hint ? (
            <>
              <code className="ag-token-hint">{agent.token_hint}</code>
              <div className="muted ag-small">
                set <Time iso={agent.token_updated_at} />
              </div>
            </>
          ) : (
            // Butler runs inside the hub: it has no token, and none can be made for it.
            <span className="muted">{butler ? 'none (in the hub)' : 'none'}</span>
          )}
        </div>
      </td>
      <td data-label="Actions" className="agent-actions">
        {butler ? (
          <span className="muted ag-small">runs inside the hub</span>
        ) : (
          <>
            <Link href={`/monitor/${agent.id}`} className="btn btn-ghost btn-small" aria-describedby={nameId}>
              Monitor
            </Link>
            <Button className="btn-small" onClick={() => onRotate(agent)} aria-describedby={nameId}>
              Rotate token
            </Button>
            <Button className="btn-small ag-danger" onClick={() => onDelete(agent)} aria-describedby={nameId}>
              Delete
            </Button>
          </>
        )}
      </td>
    </tr>
  );
}

// The registered agents, a page at a time as the hub searches and pages them, with live presence on
// the rows on screen, what they are, their token's hint and age, and the actions on each. Butler is
// listed (first, on the unfiltered first page) but not editable: it runs inside the hub.
import type { AgentCounts, UserView } from '@hub/client';
import { Link } from 'wouter';
import { Pager, RosterSearch } from '../../components/roster/RosterControls';
import { Badge, Button, Card, CopyButton, Empty, Loading, Time } from '../../components/ui';
import type { PresenceFilter } from '../../hooks/useRoster';
import { isButler } from '../../state/agents';

interface Props {
  /** The page of agents the hub answered (Butler not among them). */
  agents: readonly UserView[];
  /** Shown above the agents on the first unfiltered page. */
  butler: UserView | undefined;
  /** Agents matching the search, all pages. */
  matching: number;
  counts: AgentCounts | undefined;
  loading: boolean;
  q: string;
  status: PresenceFilter;
  page: number;
  limit: number;
  onQ(q: string): void;
  onStatus(status: PresenceFilter): void;
  onPage(page: number): void;
  onRegister(): void;
  onRotate(agent: UserView): void;
  onDelete(agent: UserView): void;
}

export function AgentTable(props: Props) {
  const { agents, butler, matching, counts, loading, q, status, page, limit, onRegister, onRotate, onDelete } = props;
  const filtered = q.trim() !== '' || status !== '';
  const rows = butler && !filtered && page === 1 ? [butler, ...agents] : agents;

  return (
    <Card
      title={
        <>
          Registered agents{' '}
          {counts ? (
            // Counted as the Overview counts them: registered agents, Butler (listed, always online) not among them.
            <span className="muted ag-count" data-testid="agents-count" data-online={counts.online} data-total={counts.total}>
              {`${counts.total.toLocaleString('en-US')} registered · ${counts.online.toLocaleString('en-US')} online (Butler not counted)`}
            </span>
          ) : null}
        </>
      }
      actions={<RosterSearch q={q} status={status} onQ={props.onQ} onStatus={props.onStatus} />}
    >
      {counts?.total === 0 && agents.length === 0 ? (
        <Empty>
          No agents are registered yet.{' '}
          <button type="button" className="link" onClick={onRegister}>
            Register the first one
          </button>
          ; its token is shown once.
        </Empty>
      ) : null}
      {rows.length === 0 && loading ? (
        <Loading what="agents" />
      ) : rows.length === 0 && filtered ? (
        <Empty>
          No agent matches{q.trim() ? ` “${q.trim()}”` : ''}
          {status ? ` (${status.toLowerCase()})` : ''}.
        </Empty>
      ) : rows.length > 0 ? (
        <table className="agents-table" aria-busy={loading}>
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
            {rows.map((agent) => (
              <AgentRow key={agent.id} agent={agent} onRotate={onRotate} onDelete={onDelete} />
            ))}
          </tbody>
        </table>
      ) : null}
      <Pager page={page} limit={limit} total={matching} onPage={props.onPage} loading={loading} />
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

// Agents (admins): who is registered and connected, a page at a time as the hub searches and pages
// them (never the whole roster), counted by the hub; registration with a token shown once, token
// rotation and deletion behind a confirmation, and a check of any token against the hub.
import type { AgentCreated, UserView } from '@hub/client';
import { useMemo, useState } from 'react';
import { useHub } from '../app/context';
import { ConfirmDialog } from '../components/ConfirmDialog';
import { Button, ErrorNote, PageHeader } from '../components/ui';
import { useRosterCounts, useRosterFilters, useRosterPage } from '../hooks/useRoster';
import { useStore } from '../lib/store';
import { isButler } from '../state/agents';
import { AgentTable } from './agents/AgentTable';
import { RegisterAgentForm } from './agents/RegisterAgentForm';
import { TestConnection } from './agents/TestConnection';
import { TokenReveal, type RevealedToken } from './agents/TokenReveal';
import './Agents.css';

/** Rows on one page. */
const AGENTS_PAGE = 50;

type Pending = { action: 'rotate' | 'delete'; agent: UserView };
/** The form open above the list, if any: the list is what the page is for, the forms are a click away. */
type Panel = 'register' | 'test' | null;

export default function Agents() {
  const { agents, api, toasts } = useHub();
  const { byId } = useStore(agents.state);
  const butler = useMemo(() => [...byId.values()].find(isButler), [byId]);
  const filters = useRosterFilters();
  const { q, status, page } = filters;
  const roster = useRosterPage({ q: filters.settledQ, status, page, limit: AGENTS_PAGE });
  const counts = useRosterCounts();
  const [revealed, setRevealed] = useState<RevealedToken | null>(null);
  const [panel, setPanel] = useState<Panel>(null);
  const [pending, setPending] = useState<Pending | null>(null);
  const [busy, setBusy] = useState(false);
  const [actionError, setActionError] = useState<unknown>();

  function registered(agent: AgentCreated) {
    // A remote A2A agent has no token: the hub calls it.
    if (agent.api_token === undefined) toasts.success(`${agent.username} was registered by its A2A card; it is online while its card answers.`);
    else setRevealed({ agentId: agent.id, username: agent.username, token: agent.api_token, hint: agent.token_hint ?? '', reason: 'registered' });
    setPanel(null);
    changed();
  }

  /** After a registration, rotation or deletion: the page, the counts and the session's agents read again. */
  function changed() {
    roster.reload();
    counts.reload();
    void agents.reload();
  }

  function toggle(which: Exclude<Panel, null>) {
    setPanel((open) => (open === which ? null : which));
  }

  function ask(action: Pending['action'], agent: UserView) {
    setActionError(undefined);
    setPending({ action, agent });
  }

  async function confirm() {
    if (!pending) return;
    const { action, agent } = pending;
    setBusy(true);
    setActionError(undefined);
    try {
      if (action === 'rotate') {
        const rotated = await api.agents.rotateToken(agent.id);
        setRevealed({ agentId: agent.id, username: agent.username, token: rotated.api_token, hint: rotated.token_hint, reason: 'rotated' });
      } else {
        await api.agents.remove(agent.id);
        // A token on screen for an agent that no longer exists is of no use.
        setRevealed((r) => (r?.agentId === agent.id ? null : r));
        toasts.success(`${agent.username} was deleted.`);
      }
      setPending(null);
      changed();
    } catch (err) {
      setActionError(err);
    } finally {
      setBusy(false);
    }
  }

  return (
    <div className="agents-page">
      <PageHeader title="Agents">
        <Button variant="primary" aria-expanded={panel === 'register'} aria-controls="agents-panel" onClick={() => toggle('register')}>
          Register an agent
        </Button>
        <Button aria-expanded={panel === 'test'} aria-controls="agents-panel" onClick={() => toggle('test')}>
          Test a connection
        </Button>
      </PageHeader>
      {revealed ? <TokenReveal revealed={revealed} onDone={() => setRevealed(null)} /> : null}
      <div id="agents-panel" className="agents-panel">
        {panel === 'register' ? <RegisterAgentForm onRegistered={registered} onClose={() => setPanel(null)} /> : null}
        {panel === 'test' ? <TestConnection onClose={() => setPanel(null)} /> : null}
      </div>
      <ErrorNote error={roster.error ?? counts.error} retry={changed} />
      <AgentTable
        agents={roster.items}
        butler={butler}
        matching={roster.total}
        counts={counts.data}
        loading={roster.loading}
        q={q}
        status={status}
        page={page}
        limit={AGENTS_PAGE}
        onQ={filters.onQ}
        onStatus={filters.onStatus}
        onPage={filters.onPage}
        onRegister={() => setPanel('register')}
        onRotate={(a) => ask('rotate', a)}
        onDelete={(a) => ask('delete', a)}
      />
      <ConfirmDialog
        open={pending !== null}
        title={pending?.action === 'rotate' ? `Rotate the token of ${pending.agent.username}?` : `Delete ${pending?.agent.username ?? 'the agent'}?`}
        confirmLabel={pending?.action === 'rotate' ? 'Rotate token' : 'Delete agent'}
        danger
        busy={busy}
        onConfirm={() => void confirm()}
        onCancel={() => setPending(null)}
      >
        {pending?.action === 'rotate' ? (
          <p>
            The current token stops working at once and the agent’s open connections are closed. A new token is shown once; the agent needs it to connect again.
          </p>
        ) : (
          <p>The agent can no longer connect: its token stops working and its open connections are closed. This cannot be undone.</p>
        )}
        <ErrorNote error={actionError} />
      </ConfirmDialog>
    </div>
  );
}

// Monitor (admins): what Butler and each agent say to each other, from the stored history and live
// BUTLER_AGENT_MESSAGE frames. The monitor store collects for every agent all session long, so the
// list shows what arrived while the page was closed.
import { useEffect, useMemo } from 'react';
import { useParams } from 'wouter';
import { useHub } from '../app/context';
import { Empty, ErrorNote, Loading, PageHeader } from '../components/ui';
import { useStore } from '../lib/store';
import { AgentPicker } from './monitor/AgentPicker';
import { ConversationView } from './monitor/ConversationView';
import './Monitor.css';

/** The route's agent id, when it is one. */
function agentParam(raw: string | undefined): number | undefined {
  if (raw === undefined || !/^\d{1,15}$/.test(raw)) return undefined;
  const id = Number(raw);
  return id > 0 ? id : undefined;
}

export default function Monitor() {
  const { agents, monitor } = useHub();
  const params = useParams<{ agent?: string }>();
  const agentId = agentParam(params.agent);
  const badParam = params.agent !== undefined && agentId === undefined;
  const { byId, loaded, complete, absent, error } = useStore(agents.state);
  const { conversations, unseen } = useStore(monitor.state);
  const list = useMemo(() => [...byId.values()].filter((u) => u.role === 'AGENT'), [byId]);
  const agent = agentId === undefined ? undefined : byId.get(agentId);
  // An agent past the first page read for the picker (a link, a reload) is read on its own.
  const unknown = loaded && agentId !== undefined && !agent && !complete && !absent.has(agentId);
  useEffect(() => {
    if (unknown) void agents.ensure(agentId!);
  }, [agents, unknown, agentId]);
  const notAgent = agent !== undefined && agent.role !== 'AGENT';
  const watched = notAgent ? undefined : agentId;

  useEffect(() => {
    monitor.watch(watched);
    return () => monitor.watch(undefined);
  }, [monitor, watched]);

  return (
    <div className="monitor-page">
      <PageHeader title="Monitor">
        <span className="muted">Butler’s conversations with agents, live</span>
      </PageHeader>
      <ErrorNote error={error} retry={() => void agents.reload()} />
      <div className={`mon-layout${agentId !== undefined || badParam ? ' mon-has-agent' : ''}`}>
        {loaded ? <AgentPicker agents={list} selected={agentId} conversations={conversations} unseen={unseen} /> : error ? <span /> : <Loading what="agents" />}
        {badParam ? (
          <section className="card">
            <Empty>“{params.agent}” is not an agent id. Pick an agent from the list.</Empty>
          </section>
        ) : agentId === undefined ? (
          <section className="card mon-none">
            <Empty>
              Pick an agent to watch its conversation with Butler. Directives (commands Butler sends once a human approves them) stand out from the questions
              and answers.
            </Empty>
          </section>
        ) : notAgent ? (
          <section className="card">
            <Empty>{agent?.username} is not an agent: only agents talk with Butler here.</Empty>
          </section>
        ) : (
          <ConversationView key={agentId} agentId={agentId} agent={agent} conversation={conversations.get(agentId)} />
        )}
      </div>
    </div>
  );
}

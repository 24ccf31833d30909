// One agent's conversation with Butler: the stored history, paged back on demand, with what arrives
// live appended (the monitor store merges both), grouped by day.
import type { UserView } from '@hub/client';
import { Fragment, useMemo, useRef } from 'react';
import { Link } from 'wouter';
import { useHub } from '../../app/context';
import { Badge, Button, Empty, ErrorNote, Loading } from '../../components/ui';
import { EMPTY_CONVERSATION, type Conversation } from '../../state/monitor';
import { answeredDirectives } from '../../state/monitorEntries';
import { MonitorEntryView } from './MonitorEntryView';
import { useStickToBottom } from './useStickToBottom';

interface Props {
  agentId: number;
  /** Undefined while the agents are loading, or when the id names no agent. */
  agent: UserView | undefined;
  conversation: Conversation | undefined;
}

const dayOf = (iso: string) => new Date(iso).toLocaleDateString(undefined, { weekday: 'short', year: 'numeric', month: 'short', day: 'numeric' });

export function ConversationView({ agentId, agent, conversation = EMPTY_CONVERSATION }: Props) {
  const { monitor } = useHub();
  const log = useRef<HTMLDivElement>(null);
  const { entries, loaded, older, loading, error, failed } = conversation;
  const { onScroll, away, toEnd } = useStickToBottom(log, entries[0]?.key, entries.at(-1)?.key);
  const name = agent?.username ?? `agent #${agentId}`;
  const answered = useMemo(() => answeredDirectives(entries), [entries]);
  let lastDay = '';

  return (
    <section className="mon-conversation card" aria-labelledby="mon-title">
      <header className="mon-head">
        <Link href="/monitor" className="btn btn-ghost btn-small mon-back">
          ← Agents
        </Link>
        <h2 id="mon-title">Butler ↔ {name}</h2>
        {agent ? (
          <Badge tone={agent.online ? 'ok' : 'muted'}>
            <span className={`mon-dot${agent.online ? ' on' : ''}`} aria-hidden />
            {agent.online ? 'online' : 'offline'}
          </Badge>
        ) : null}
        {agent?.last_report ? (
          <span className="muted mon-report" title={agent.last_report}>
            {agent.last_report}
          </span>
        ) : null}
      </header>
      <div className="mon-log-wrap">
        <div ref={log} className="mon-log" role="log" aria-label={`Messages between Butler and ${name}`} tabIndex={0} onScroll={onScroll}>
          {older ? (
            <div className="mon-older">
              <Button className="btn-small" busy={loading === 'older'} onClick={() => void monitor.loadOlder(agentId)}>
                Load older messages
              </Button>
            </div>
          ) : loaded && entries.length > 0 ? (
            <p className="mon-start muted">Start of the conversation</p>
          ) : null}
          <ErrorNote error={error} retry={() => void (failed === 'older' ? monitor.loadOlder(agentId) : monitor.reload(agentId))} />
          {!loaded && loading ? <Loading what="the conversation" /> : null}
          {loaded && entries.length === 0 ? (
            <Empty>
              Butler and {name} have not talked yet. Their messages appear here as they are sent: Butler’s questions, the commands it sends once a human
              approves them, and the agent’s answers.
            </Empty>
          ) : null}
          {entries.map((entry) => {
            const day = dayOf(entry.timestamp);
            const divider = day !== lastDay;
            lastDay = day;
            return (
              <Fragment key={entry.key}>
                {divider ? (
                  <div className="mon-day" role="separator">
                    <span>{day}</span>
                  </div>
                ) : null}
                <MonitorEntryView entry={entry} agentName={name} answers={answered.get(entry.key)} />
              </Fragment>
            );
          })}
        </div>
        {away ? (
          <Button className="btn-small mon-to-end" onClick={toEnd}>
            ↓ Newest
          </Button>
        ) : null}
      </div>
    </section>
  );
}

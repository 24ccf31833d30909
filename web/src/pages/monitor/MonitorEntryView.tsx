// One message between Butler and an agent: a directive (a command Butler sends once a human approved
// it) reads as a command; Butler's other messages and the agent's replies read as a conversation,
// rendered as markdown the way Chat renders them (pasted diffs and code as code).
import { memo } from 'react';
import { Badge } from '../../components/ui';
import { Markdown } from '../chat/Markdown';
import type { MonitorEntry } from '../../state/monitorEntries';

const timeOf = (iso: string) => new Date(iso).toLocaleTimeString();

export const MonitorEntryView = memo(function MonitorEntryView({
  entry,
  agentName,
  answers,
}: {
  entry: MonitorEntry;
  agentName: string;
  answers?: MonitorEntry | undefined;
}) {
  const badge =
    entry.kind === 'directive' ? (
      <Badge tone="warn">Directive</Badge>
    ) : entry.kind === 'butler' ? (
      <Badge tone="info">to {agentName}</Badge>
    ) : (
      <Badge>to Butler</Badge>
    );
  return (
    <article className={`mon-entry mon-${entry.kind}`} data-testid="monitor-entry" data-kind={entry.kind} data-id={entry.id}>
      <header className="mon-meta">
        <span className="mon-sender">{entry.senderName}</span>
        {badge}
        <time dateTime={entry.timestamp} title={new Date(entry.timestamp).toLocaleString()}>
          {timeOf(entry.timestamp)}
        </time>
      </header>
      {entry.kind === 'directive' ? (
        <pre className="mon-command">
          <span aria-hidden>▸ </span>
          {entry.text}
        </pre>
      ) : (
        <div className="mon-text">
          <Markdown text={entry.text} />
        </div>
      )}
      {answers ? (
        <p className="mon-answers muted" data-testid="monitor-answers">
          answers the directive <code>{answers.text}</code>
        </p>
      ) : null}
    </article>
  );
});

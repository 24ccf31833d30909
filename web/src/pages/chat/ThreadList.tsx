// The threads with the selected peer: pinned first, then by latest activity (live: a message arriving
// moves its thread up), each with its unread count; a form to start a new one; archived threads on
// request.
import type { ThreadView } from '@hub/client';
import { useMemo, useState, type FormEvent } from 'react';
import { Link } from 'wouter';
import { useHub } from '../../app/context';
import { Button, ErrorNote, Loading, Time } from '../../components/ui';
import { useStore } from '../../lib/store';
import type { ChatState } from '../../state/chat';

interface Props {
  peerId: number;
  peerName: string;
  threads: ThreadView[] | undefined;
  error: unknown;
  selectedId: number | undefined;
  onReload(): void;
  onCreated(thread: ThreadView): void;
  onPick(): void;
}

/** When a thread last saw a message: the hub's record or what arrived since. */
function activity(thread: ThreadView, chat: ChatState): string {
  const items = chat.conversations.get(thread.id)?.items;
  const latest = items?.[items.length - 1]?.timestamp;
  const known = thread.last_message_at ?? thread.created_at;
  return latest && latest > known ? latest : known;
}

export function ThreadList({ peerId, peerName, threads, error, selectedId, onReload, onCreated, onPick }: Props) {
  const { api, chat, toasts } = useHub();
  const chatState = useStore(chat.state);
  const [showArchived, setShowArchived] = useState(false);
  const [creating, setCreating] = useState(false);
  const [title, setTitle] = useState('');
  const [busy, setBusy] = useState(false);

  const shown = useMemo(() => {
    if (!threads) return undefined;
    const visible = threads.filter((t) => showArchived || !t.archived_at || t.id === selectedId);
    const at = new Map(visible.map((t) => [t.id, activity(t, chatState)]));
    return visible.sort((a, b) => Number(b.is_pinned) - Number(a.is_pinned) || at.get(b.id)!.localeCompare(at.get(a.id)!) || b.id - a.id);
  }, [threads, showArchived, selectedId, chatState]);
  const archivedCount = threads?.filter((t) => t.archived_at).length ?? 0;

  async function create(event: FormEvent) {
    event.preventDefault();
    setBusy(true);
    try {
      const thread = await api.chat.createThread({ peer_id: peerId, ...(title.trim() ? { title: title.trim() } : {}) });
      onCreated(thread);
      setCreating(false);
      setTitle('');
    } catch (err) {
      toasts.error(err, 'Could not start a thread');
    } finally {
      setBusy(false);
    }
  }

  return (
    <section className="chat-threads" aria-labelledby="threads-title">
      <div className="chat-pane-head">
        <h2 id="threads-title">Threads</h2>
        {!creating ? (
          <Button className="btn-small" onClick={() => setCreating(true)}>
            New thread
          </Button>
        ) : null}
      </div>
      {creating ? (
        <form className="thread-new" onSubmit={(e) => void create(e)}>
          <label className="sr-only" htmlFor="thread-title">
            Title of the new thread
          </label>
          <input id="thread-title" value={title} maxLength={200} placeholder="Title (optional)" onChange={(e) => setTitle(e.target.value)} autoFocus />
          <div className="thread-new-actions">
            <Button type="submit" variant="primary" className="btn-small" busy={busy}>
              Create
            </Button>
            <Button className="btn-small" variant="ghost" onClick={() => setCreating(false)}>
              Cancel
            </Button>
          </div>
        </form>
      ) : null}
      <ErrorNote error={error} retry={onReload} />
      {!shown && !error ? <Loading what="threads" /> : null}
      {shown && shown.length === 0 ? <p className="chat-hint">No open threads with {peerName}. Start one with “New thread”.</p> : null}
      {shown && shown.length > 0 ? (
        <ul className="chat-list" aria-label={`Threads with ${peerName}`}>
          {shown.map((t) => {
            const unread = chatState.unread.get(t.id) ?? 0;
            const selected = t.id === selectedId;
            return (
              <li key={t.id}>
                <Link
                  href={`/chat/${peerId}/${t.id}`}
                  className={`chat-row${selected ? ' selected' : ''}`}
                  aria-current={selected ? 'page' : undefined}
                  onClick={onPick}
                  data-testid="thread"
                >
                  <span className="chat-row-main">
                    <span className="chat-row-title">
                      {t.is_pinned ? (
                        <span className="thread-pin" title="Pinned" aria-label="Pinned">
                          📌
                        </span>
                      ) : null}
                      {t.title}
                    </span>
                    <span className="chat-row-sub">
                      {t.archived_at ? 'Archived · ' : ''}
                      <Time iso={activity(t, chatState)} />
                    </span>
                  </span>
                  {unread > 0 ? (
                    <span className="badge badge-accent" aria-label={`${unread} unread`} data-testid="unread">
                      {unread}
                    </span>
                  ) : null}
                </Link>
              </li>
            );
          })}
        </ul>
      ) : null}
      {archivedCount > 0 ? (
        <label className="check chat-archived-toggle">
          <input type="checkbox" checked={showArchived} onChange={(e) => setShowArchived(e.target.checked)} />
          Show archived ({archivedCount})
        </label>
      ) : null}
    </section>
  );
}

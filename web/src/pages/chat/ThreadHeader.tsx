// The open thread's title and what can be done to it: rename (inline), pin, archive. Each change is
// the hub's PATCH; the list takes the answer.
import type { ThreadView, UserView } from '@hub/client';
import { useState, type FormEvent } from 'react';
import { useHub } from '../../app/context';
import { Badge, Button } from '../../components/ui';
import { peerLabel } from './PeerList';

interface Props {
  peer: UserView;
  thread: ThreadView;
  onChanged(thread: ThreadView): void;
}

type Change = { title: string } | { is_pinned: boolean } | { is_archived: boolean };

export function ThreadHeader({ peer, thread, onChanged }: Props) {
  const { api, toasts } = useHub();
  const [renaming, setRenaming] = useState(false);
  const [title, setTitle] = useState(thread.title);
  const [busy, setBusy] = useState<string>();

  async function change(what: string, body: Change, done: string): Promise<boolean> {
    setBusy(what);
    try {
      onChanged(await api.chat.updateThread(thread.id, body));
      toasts.success(done);
      return true;
    } catch (err) {
      toasts.error(err, `Could not ${what} the thread`);
      return false;
    } finally {
      setBusy(undefined);
    }
  }

  async function rename(event: FormEvent) {
    event.preventDefault();
    const next = title.trim();
    if (!next || next === thread.title) return setRenaming(false);
    if (await change('rename', { title: next }, `Renamed to “${next}”`)) setRenaming(false);
  }

  return (
    <header className="conv-head">
      <div className="conv-title">
        <span className={`presence ${peer.online ? 'presence-on' : 'presence-off'}`} title={peer.online ? 'Online' : 'Offline'} aria-hidden />
        <div className="conv-title-text">
          {renaming ? (
            <form className="conv-rename" onSubmit={(e) => void rename(e)}>
              <label className="sr-only" htmlFor="thread-rename">
                Thread title
              </label>
              <input
                id="thread-rename"
                value={title}
                maxLength={200}
                required
                onChange={(e) => setTitle(e.target.value)}
                onKeyDown={(e) => e.key === 'Escape' && setRenaming(false)}
                autoFocus
              />
              <Button type="submit" variant="primary" className="btn-small" busy={busy === 'rename'}>
                Save
              </Button>
              <Button className="btn-small" variant="ghost" onClick={() => setRenaming(false)}>
                Cancel
              </Button>
            </form>
          ) : (
            <h2 data-testid="thread-title">{thread.title}</h2>
          )}
          <span className="conv-sub">
            {peerLabel(peer)} · {peer.online ? 'online' : 'offline'}
            {thread.is_pinned ? <Badge tone="info">Pinned</Badge> : null}
            {thread.archived_at ? <Badge>Archived</Badge> : null}
          </span>
        </div>
      </div>
      {!renaming ? (
        <div className="conv-actions">
          <Button
            className="btn-small"
            variant="ghost"
            onClick={() => {
              setTitle(thread.title);
              setRenaming(true);
            }}
          >
            Rename
          </Button>
          <Button
            className="btn-small"
            variant="ghost"
            busy={busy === 'pin'}
            onClick={() => void change('pin', { is_pinned: !thread.is_pinned }, thread.is_pinned ? 'Unpinned' : 'Pinned')}
          >
            {thread.is_pinned ? 'Unpin' : 'Pin'}
          </Button>
          <Button
            className="btn-small"
            variant="ghost"
            busy={busy === 'archive'}
            onClick={() => void change('archive', { is_archived: !thread.archived_at }, thread.archived_at ? 'Thread restored' : 'Thread archived')}
          >
            {thread.archived_at ? 'Unarchive' : 'Archive'}
          </Button>
        </div>
      ) : null}
    </header>
  );
}

// Chat with Butler and with each agent: the peers (live presence, unread counts), the threads with
// the selected peer, and the open thread's messages. The address names the peer and the thread
// (/chat/:peer/:thread); without a thread it opens the peer's default one. A user who never wrote to
// the peer has no thread yet: the first message makes the default one (the hub never makes it on a read).
import { Fragment, useEffect, useState } from 'react';
import { Link, useLocation, useParams } from 'wouter';
import { defaultThreadTitle, type UserView } from '@hub/client';
import { useHub } from '../app/context';
import { Button, ErrorNote, Loading, PageHeader } from '../components/ui';
import { useStore } from '../lib/store';
import { isButler } from '../state/agents';
import { Conversation } from './chat/Conversation';
import { PeerList, peerLabel } from './chat/PeerList';
import { ThreadHeader } from './chat/ThreadHeader';
import { ThreadList } from './chat/ThreadList';
import { useThreads } from './chat/useThreads';
import './Chat.css';

const BUTLER_ID = 2;

function idParam(value: string | undefined): number | undefined | null {
  if (value === undefined) return undefined;
  const n = Number(value);
  return Number.isSafeInteger(n) && n > 0 ? n : null;
}

export default function Chat() {
  const params = useParams<{ peer?: string; thread?: string }>();
  const [, navigate] = useLocation();
  const { agents } = useHub();
  const { byId, loaded, complete, absent, error: agentsError } = useStore(agents.state);
  const peerParam = idParam(params.peer);
  const threadParam = idParam(params.thread);
  const peerId = peerParam ?? BUTLER_ID;
  const peer = byId.get(peerId);
  // An agent past the first page read for the pickers (a link, a reload) is read on its own.
  const unknown = loaded && !peer && !complete && !absent.has(peerId);
  useEffect(() => {
    if (unknown) void agents.ensure(peerId);
  }, [agents, unknown, peerId]);
  const threads = useThreads(peer && peerParam !== null ? peerId : undefined);
  const thread = threadParam ? threads.list?.find((t) => t.id === threadParam) : undefined;
  // At phone width the lists and the conversation take turns; this says which one shows.
  const [listsOpen, setListsOpen] = useState(false);

  // No thread in the address: open the default one (or the first open one).
  useEffect(() => {
    if (threadParam !== undefined || !threads.list) return;
    const open = threads.list.filter((t) => !t.archived_at);
    const first = open.find((t) => t.is_default) ?? open[0];
    if (first) navigate(`/chat/${peerId}/${first.id}`, { replace: true });
  }, [threadParam, threads.list, peerId, navigate]);

  const closeLists = () => setListsOpen(false);
  let main;
  if (peerParam === null || threadParam === null) main = <Missing text="This address does not name a peer and a thread." />;
  else if (!peer) {
    if (loaded && !unknown) main = <Missing text="There is no agent with this id. Pick someone from the list." />;
    else if (agentsError) main = <Failed error={agentsError} retry={() => void agents.reload()} />;
    else main = <Loading what="agents" />;
  } else if (thread) {
    main = (
      <Fragment key={thread.id}>
        <ThreadHeader peer={peer} thread={thread} onChanged={threads.put} />
        <Conversation peer={peer} threadId={thread.id} />
      </Fragment>
    );
  } else if (threadParam !== undefined && threads.list) main = <Missing text="This thread does not exist or is not yours." />;
  else if (threads.list && threads.list.length === 0) {
    main = (
      <>
        <FirstThreadHeader peer={peer} />
        <Conversation key="first" peer={peer} threadId={undefined} />
      </>
    );
  } else if (threads.list && threads.list.every((t) => t.archived_at))
    main = <Missing text={`Every thread with ${peerLabel(peer)} is archived. Start a new one, or show the archived ones.`} />;
  else if (threads.error) main = <Failed error={threads.error} retry={threads.reload} />;
  else main = <Loading what="the conversation" />;

  return (
    <div className="chat-page">
      <PageHeader title="Chat">
        <Button className="chat-lists-toggle" aria-expanded={listsOpen} aria-controls="chat-lists" onClick={() => setListsOpen((o) => !o)}>
          {listsOpen ? 'Show conversation' : 'Peers and threads'}
        </Button>
      </PageHeader>
      <div className={`chat${listsOpen ? ' chat-lists-open' : ''}`}>
        <aside id="chat-lists" className="chat-lists" aria-label="Peers and threads">
          <PeerList selectedId={peerId} onPick={closeLists} />
          {peer ? (
            <ThreadList
              key={peerId}
              peerId={peerId}
              peerName={peerLabel(peer)}
              threads={threads.list}
              error={threads.error}
              selectedId={thread?.id}
              onReload={threads.reload}
              onCreated={(created) => {
                threads.put(created);
                closeLists();
                navigate(`/chat/${peerId}/${created.id}`);
              }}
              onPick={closeLists}
            />
          ) : null}
        </aside>
        <section className="chat-main" aria-label="Conversation">
          {main}
        </section>
      </div>
    </div>
  );
}

/** The title the thread will have once the first message makes it. */
function FirstThreadHeader({ peer }: { peer: UserView }) {
  return (
    <header className="conv-head">
      <div className="conv-title">
        <span className={`presence ${peer.online ? 'presence-on' : 'presence-off'}`} title={peer.online ? 'Online' : 'Offline'} aria-hidden />
        <div className="conv-title-text">
          <h2 data-testid="thread-title">{defaultThreadTitle(isButler(peer) ? 'butler_direct' : 'agent_direct', peer.username)}</h2>
          <span className="conv-sub">
            {peerLabel(peer)} · {peer.online ? 'online' : 'offline'}
          </span>
        </div>
      </div>
    </header>
  );
}

function Missing({ text }: { text: string }) {
  return (
    <div className="chat-missing">
      <p className="notice">{text}</p>
      <Link href={`/chat/${BUTLER_ID}`}>Chat with Butler</Link>
    </div>
  );
}

/** At phone width the lists (where errors also show) are hidden: the failure shows here too. */
function Failed({ error, retry }: { error: unknown; retry(): void }) {
  return (
    <div className="chat-missing">
      <ErrorNote error={error} retry={retry} />
    </div>
  );
}

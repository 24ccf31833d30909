// The dashboard: signed out, the login page; signed in, the live session (socket, stores) and the
// pages. Everything a session built is torn down when it ends.
import { Suspense, useEffect, useState, type ReactNode } from 'react';
import { Route, Switch, useLocation } from 'wouter';
import { ErrorBoundary } from '../components/ErrorBoundary';
import { Toasts } from '../components/Toasts';
import { Loading, PageHeader } from '../components/ui';
import { createApi } from '../lib/api';
import { createLive } from '../lib/live';
import { useStore } from '../lib/store';
import type { Session } from '../lib/session';
import { createAgents } from '../state/agents';
import { createFeed } from '../state/feed';
import { createApprovals } from '../state/approvals';
import { createChat } from '../state/chatLive';
import { createMonitor } from '../state/monitor';
import { HubContext, ShellContext, useShell, type Hub, type Shell } from './context';
import { Layout } from './Layout';
import { PAGES } from './pages';
import { Login } from '../pages/Login';

export function App({ shell }: { shell: Shell }) {
  return (
    <ShellContext.Provider value={shell}>
      <Signed />
      <Toasts />
    </ShellContext.Provider>
  );
}

function Signed() {
  const shell = useShell();
  const session = useStore(shell.session.current);
  if (!session) return <Login />;
  // A new token (another sign-in) is a new session: key on it so nothing of the old one survives.
  return <SessionRoot key={session.token} session={session} />;
}

function SessionRoot({ session }: { session: Session }) {
  const shell = useShell();
  const [hub, setHub] = useState<Hub>();
  const { id, username } = session.user;
  // Built in an effect, so its socket is closed exactly when this session's view goes away.
  useEffect(() => {
    const api = createApi(shell.session);
    const live = createLive(shell.session);
    // The role as it was at sign-in; a later change shows in the pages, not in messages already sent.
    const me = { id, name: username, role: shell.session.current.get()?.user.role ?? 'MEMBER' };
    // The hub closes a socket when its user's role changes; after every reconnect, the user is read
    // again so the pages follow (a promoted member sees the admin pages).
    const offUser = live.connections.subscribe(() => {
      if (live.connections.get() > 1) api.users.get(id).then(shell.session.refreshUser, () => undefined);
    });
    const built: Hub = {
      ...shell,
      api,
      stats: api.stats,
      live,
      agents: createAgents(api, live),
      feed: createFeed(api, live),
      chat: createChat(api, live, me),
      approvals: createApprovals(api, live, id),
      monitor: createMonitor(api, live),
    };
    setHub(built);
    return () => {
      offUser();
      built.agents.dispose();
      built.feed.dispose();
      built.chat.dispose();
      built.approvals.dispose();
      built.monitor.dispose();
      void built.live.close();
    };
  }, [shell, id, username]);
  if (!hub) return <Loading what="your session" />;
  return (
    <HubContext.Provider value={hub}>
      <Layout>
        <Pages admin={session.user.role === 'ADMIN'} />
      </Layout>
    </HubContext.Provider>
  );
}

function Pages({ admin }: { admin: boolean }) {
  const [location] = useLocation();
  return (
    <ErrorBoundary resetKey={location}>
      <Suspense fallback={<Loading what="the page" />}>
        <Switch>
          {PAGES.map(({ path, admin: adminOnly, component: Page, label }) => (
            <Route key={path} path={path}>
              {adminOnly && !admin ? <AdminsOnly label={label} /> : <Page />}
            </Route>
          ))}
          <Route>
            <NotFound />
          </Route>
        </Switch>
      </Suspense>
    </ErrorBoundary>
  );
}

function Notice({ title, children }: { title: string; children: ReactNode }) {
  return (
    <div>
      <PageHeader title={title} />
      <p className="notice">{children}</p>
    </div>
  );
}

function AdminsOnly({ label }: { label: string }) {
  return <Notice title={label}>This page is for admins. Ask an admin of this hub if you need it.</Notice>;
}

function NotFound() {
  return <Notice title="Not found">There is no page here. Pick one from the menu.</Notice>;
}

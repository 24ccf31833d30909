// The signed-in user: a JWT kept in localStorage, so the session survives a reload until the token
// expires. The session ends itself at the token's expiry and when the hub answers 401.
import type { UserView } from '@hub/client';
import { createStore, type Store } from './store';

const KEY = 'hub.session';

export interface Session {
  token: string;
  user: UserView;
  /** Epoch ms when the JWT expires. */
  expiresAt: number;
}

/** The `exp` claim of a JWT, in epoch ms (the signature is the hub's business, not the page's). */
export function jwtExpiry(token: string): number | undefined {
  const part = token.split('.')[1];
  if (!part) return undefined;
  try {
    const claims = JSON.parse(atob(part.replace(/-/g, '+').replace(/_/g, '/'))) as { exp?: unknown };
    return typeof claims.exp === 'number' ? claims.exp * 1000 : undefined;
  } catch {
    return undefined;
  }
}

function load(storage: Storage, now: number): Session | null {
  try {
    const saved = JSON.parse(storage.getItem(KEY) ?? 'null') as Session | null;
    if (saved && typeof saved.token === 'string' && saved.user && saved.expiresAt > now) return saved;
  } catch {
    // A damaged entry is the same as none.
  }
  storage.removeItem(KEY);
  return null;
}

export interface SessionStore {
  current: Store<Session | null>;
  /** Why the last session ended, when it was not the user's choice. */
  notice: Store<string | null>;
  token(): string;
  signIn(answer: { token: string; user: UserView }): void;
  /** The same session with the user as the hub now knows them (a role changed, say). */
  refreshUser(user: UserView): void;
  signOut(reason?: string): void;
}

export function createSessionStore(storage: Storage = localStorage): SessionStore {
  const current = createStore<Session | null>(load(storage, Date.now()));
  const notice = createStore<string | null>(null);
  let timer: ReturnType<typeof setTimeout> | undefined;

  function arm(session: Session | null) {
    clearTimeout(timer);
    // setTimeout's delay is a 32-bit number: a long-lived token is re-checked daily.
    if (session) timer = setTimeout(() => expire(session), Math.min(session.expiresAt - Date.now(), 86_400_000));
  }
  function expire(session: Session) {
    if (current.get() !== session) return;
    if (session.expiresAt > Date.now()) return arm(session);
    signOut('Your session has expired. Please sign in again.');
  }
  function signOut(reason?: string) {
    storage.removeItem(KEY);
    notice.set(reason ?? null);
    current.set(null);
    arm(null);
  }
  arm(current.get());
  // Another tab signing in or out changes this one too.
  window.addEventListener('storage', (event) => {
    if (event.key !== KEY) return;
    const next = load(storage, Date.now());
    if (next?.token !== current.get()?.token) {
      current.set(next);
      arm(next);
    }
  });

  return {
    current,
    notice,
    token: () => current.get()?.token ?? '',
    signIn({ token, user }) {
      // A token without `exp` is kept for a day, the hub's default lifetime.
      const session: Session = { token, user, expiresAt: jwtExpiry(token) ?? Date.now() + 86_400_000 };
      storage.setItem(KEY, JSON.stringify(session));
      notice.set(null);
      current.set(session);
      arm(session);
    },
    signOut,
    refreshUser(user) {
      const session = current.get();
      if (!session || session.user.id !== user.id) return;
      if (session.user.role === user.role && session.user.username === user.username) return;
      const next = { ...session, user };
      storage.setItem(KEY, JSON.stringify(next));
      current.set(next);
    },
  };
}

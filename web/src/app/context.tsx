// What every page reaches through React context: the session, the REST helper, the live socket and
// the live stores built on it, the theme and the toasts. Built once per signed-in session.
import type { RestClient } from '@hub/client';
import { createContext, useContext } from 'react';
import type { Live } from '../lib/live';
import type { SessionStore } from '../lib/session';
import type { Theme } from '../lib/theme';
import type { Toasts } from '../lib/toasts';
import type { Agents } from '../state/agents';
import type { Approvals } from '../state/approvals';
import type { ChatLive } from '../state/chatLive';
import type { Monitor } from '../state/monitor';
import type { Feed } from '../state/feed';

/** Outlives sign-in and sign-out. */
export interface Shell {
  session: SessionStore;
  theme: Theme;
  toasts: Toasts;
  /** Unsigned requests (login, registration, options). */
  publicApi: RestClient;
}

/** Exists while someone is signed in. */
export interface Hub extends Shell {
  api: RestClient;
  /** The chart series (GET /api/stats/...): the REST helper's, signed and retried as `api` is. */
  stats: RestClient['stats'];
  live: Live;
  agents: Agents;
  chat: ChatLive;
  approvals: Approvals;
  monitor: Monitor;
  feed: Feed;
}

export const ShellContext = createContext<Shell | null>(null);
export const HubContext = createContext<Hub | null>(null);

export function useShell(): Shell {
  const shell = useContext(ShellContext);
  if (!shell) throw new Error('useShell outside the dashboard shell');
  return shell;
}

export function useHub(): Hub {
  const hub = useContext(HubContext);
  if (!hub) throw new Error('useHub outside a signed-in session');
  return hub;
}

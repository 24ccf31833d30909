// The session's agents store: the list read once per connection, PRESENCE frames gathered into one
// update per animation frame, and an agent it does not know yet (registered since) read again.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { RestClient, ServerFrame, UserView } from '@hub/client';
import type { Live } from '../../../web/src/lib/live.js';
import { createStore } from '../../../web/src/lib/store.js';
import { createAgents } from '../../../web/src/state/agents.js';

const user = (id: number, username: string, role = 'AGENT'): UserView =>
  ({
    id,
    username,
    role,
    actor_type: 'agent',
    agent_kind: null,
    runtime_kind: null,
    description: null,
    created_at: 't',
    status: 'OFFLINE',
    online: false,
    last_seen_at: null,
    last_report: null,
  }) as unknown as UserView;

function presence(userId: number, report: string, online = true): ServerFrame {
  return {
    type: 'PRESENCE',
    sender_id: userId,
    sender_name: `agent-${userId}`,
    sender_role: 'AGENT',
    timestamp: 't',
    payload: { user_id: userId, username: `agent-${userId}`, status: online ? 'ONLINE' : 'OFFLINE', online, last_seen_at: 't', last_report: report },
  } as ServerFrame;
}

function fakes(agents: UserView[]) {
  let onPresence: ((f: ServerFrame) => void) | undefined;
  const roster = [...agents];
  const api = {
    agents: {
      list: vi.fn(async () => ({ items: [...roster], total: roster.length })),
      butler: vi.fn(async () => user(2, 'Butler', 'BUTLER')),
    },
  } as unknown as RestClient;
  const connections = createStore(0);
  const live = {
    client: { on: (_t: string, h: (f: ServerFrame) => void) => ((onPresence = h), () => (onPresence = undefined)) },
    connections,
  } as unknown as Live;
  return { api, live, roster, connections, send: (f: ServerFrame) => onPresence?.(f) };
}

describe('agents store', () => {
  let frames: Array<() => void>;
  beforeEach(() => {
    frames = [];
    vi.stubGlobal('requestAnimationFrame', (fn: () => void) => frames.push(fn));
  });
  afterEach(() => void vi.unstubAllGlobals());
  const nextFrame = () => frames.splice(0).forEach((fn) => fn());

  it('lists the agents and Butler, then applies a burst of PRESENCE frames as one update with the latest of each', async () => {
    const f = fakes([user(3, 'agent-3'), user(4, 'agent-4')]);
    const agents = createAgents(f.api, f.live);
    await vi.waitFor(() => expect(agents.state.get().loaded).toBe(true));
    expect([...agents.state.get().byId.keys()].sort()).toEqual([2, 3, 4]);

    const updates = vi.fn();
    agents.state.subscribe(updates);
    for (let i = 1; i <= 500; i++) f.send(presence(3, `report ${i}`));
    f.send(presence(4, 'idle', false));
    expect(updates).not.toHaveBeenCalled();
    nextFrame();
    expect(updates).toHaveBeenCalledTimes(1);
    const byId = agents.state.get().byId;
    expect(byId.get(3)).toMatchObject({ online: true, status: 'ONLINE', last_report: 'report 500' });
    expect(byId.get(4)).toMatchObject({ online: false, last_report: 'idle' });
    expect(f.api.agents.list).toHaveBeenCalledTimes(1);
    agents.dispose();
  });

  it('reads the list again for an agent it does not know, and after every reconnection', async () => {
    const f = fakes([user(3, 'agent-3')]);
    const agents = createAgents(f.api, f.live);
    await vi.waitFor(() => expect(agents.state.get().loaded).toBe(true));

    f.roster.push(user(5, 'agent-5'));
    f.send(presence(5, 'hello'));
    nextFrame();
    await vi.waitFor(() => expect(agents.state.get().byId.has(5)).toBe(true));
    expect(f.api.agents.list).toHaveBeenCalledTimes(2);

    f.connections.set(1);
    await vi.waitFor(() => expect(f.api.agents.list).toHaveBeenCalledTimes(3));
    agents.dispose();
    f.send(presence(3, 'after dispose'));
    expect(frames).toEqual([]);
  });

  it('keeps a PRESENCE that arrives while the list is being read, even for an agent the list did not know yet', async () => {
    const f = fakes([user(3, 'agent-3')]);
    const agents = createAgents(f.api, f.live);
    await vi.waitFor(() => expect(agents.state.get().loaded).toBe(true));

    // A new agent connects: its first PRESENCE makes the store read the list, which was read before
    // the agent's first report was stored...
    let answer!: (value: { items: UserView[]; total: number }) => void;
    vi.mocked(f.api.agents.list).mockImplementationOnce(() => new Promise((resolve) => (answer = resolve)));
    f.send(presence(5, 'websocket_connected'));
    nextFrame();
    // ...and the report's PRESENCE comes while that read is in flight.
    f.send(presence(5, 'echo agent online'));
    nextFrame();
    answer({
      items: [user(3, 'agent-3'), { ...user(5, 'agent-5'), online: true, status: 'ONLINE', last_report: 'websocket_connected' } as UserView],
      total: 2,
    });
    await vi.waitFor(() => expect(agents.state.get().byId.get(5)).toMatchObject({ last_report: 'echo agent online', online: true }));
    agents.dispose();
  });

  it('keeps the last list and says why when reading it fails', async () => {
    const f = fakes([user(3, 'agent-3')]);
    const agents = createAgents(f.api, f.live);
    await vi.waitFor(() => expect(agents.state.get().loaded).toBe(true));
    vi.mocked(f.api.agents.list).mockRejectedValueOnce(new TypeError('fetch failed'));
    await agents.reload();
    expect(agents.state.get().error).toBeInstanceOf(TypeError);
    expect(agents.state.get().byId.has(3)).toBe(true);
    agents.dispose();
  });
});

// The hub's admin HTTP API, as far as the bench needs it to set up users.

export interface UserRef {
  id: number;
  username: string;
}

export class HubApi {
  constructor(private readonly baseUrl: string) {}

  private async request<T>(method: string, path: string, body: unknown, bearer?: string): Promise<T> {
    const res = await fetch(`${this.baseUrl}${path}`, {
      method,
      headers: { 'content-type': 'application/json', ...(bearer ? { authorization: `Bearer ${bearer}` } : {}) },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(30_000),
    });
    const text = await res.text();
    if (!res.ok) throw new Error(`${method} ${path} → ${res.status} ${text.slice(0, 200)}`);
    return JSON.parse(text) as T;
  }

  login(username: string, password: string): Promise<{ token: string; user: UserRef }> {
    return this.request('POST', '/api/auth/login', { username, password });
  }

  createMember(adminToken: string, username: string, password: string): Promise<UserRef> {
    return this.request('POST', '/api/users', { username, password, role: 'MEMBER' }, adminToken);
  }

  registerAgent(adminToken: string, username: string): Promise<UserRef & { api_token: string }> {
    return this.request('POST', '/api/users/agents', { username }, adminToken);
  }

  /** A remote A2A agent, registered by its card URL (the hub fetches the card first). */
  registerRemoteAgent(adminToken: string, username: string, cardUrl: string): Promise<UserRef> {
    return this.request('POST', '/api/users/agents', { username, runtime_kind: 'a2a', card_url: cardUrl }, adminToken);
  }

  /** A user as the hub describes it (presence included). */
  user(token: string, id: number): Promise<UserRef & { online: boolean; status: string }> {
    return this.request('GET', `/api/users/${id}`, undefined, token);
  }

  /** A new api_token for the agent; its open sockets close with 4001 on every node. */
  rotateToken(adminToken: string, agentId: number): Promise<{ api_token: string }> {
    return this.request('PATCH', `/api/users/agents/${agentId}/token`, {}, adminToken);
  }
}

/** Runs `fn` over `items` with at most `concurrency` calls in flight, keeping the order of results. */
export async function mapLimit<T, R>(
  items: readonly T[],
  concurrency: number,
  fn: (item: T, index: number) => Promise<R>,
  onProgress?: (done: number) => void,
): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  let done = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      results[i] = await fn(items[i]!, i);
      if (++done % 1000 === 0) onProgress?.(done);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, worker));
  return results;
}

/** The password of every member the bench creates. */
export const MEMBER_PASSWORD = 'bench-password-1';

export interface Cast {
  humans: Array<UserRef & { token: string }>;
  agents: Array<UserRef & { api_token: string }>;
}

/** Members (logged in) and agents (registered) for a run; names carry `prefix` so runs never clash. */
export async function createCast(api: HubApi, adminToken: string, prefix: string, humans: number, agents: number): Promise<Cast> {
  const password = MEMBER_PASSWORD;
  const members = await mapLimit(
    Array.from({ length: humans }, (_, i) => `${prefix}-human-${i}`),
    8,
    async (name) => {
      await api.createMember(adminToken, name, password);
      const { token, user } = await api.login(name, password);
      return { ...user, token };
    },
  );
  const registered = await registerAgents(api, adminToken, prefix, agents);
  return { humans: members, agents: registered };
}

export function registerAgents(api: HubApi, adminToken: string, prefix: string, count: number, onProgress?: (done: number) => void) {
  return mapLimit(
    Array.from({ length: count }, (_, i) => `${prefix}-agent-${i}`),
    16,
    (name) => api.registerAgent(adminToken, name),
    onProgress,
  );
}

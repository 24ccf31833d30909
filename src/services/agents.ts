// Machine users (agents and Butler): registration with an api_token, listing with presence,
// token checks and rotation, deletion. Only agents hold api_tokens: Butler runs inside the hub, and
// no credential may act as it.
import type { Insertable, Kysely, Transaction } from 'kysely';
import { Errors } from '../errors.js';
import type { AgentSkill } from '../protocol/a2a.js';
import type { AgentCounts } from '../protocol/stats.js';
import { type PresenceView, type UserView } from '../protocol/objects.js';
import { BUTLER_USERNAME } from '../protocol/roles.js';
import { isUniqueViolation } from '../store/errors.js';
import type { CredentialsRepo } from '../store/repositories/credentials.js';
import type { MachineUserRow, UsersRepo } from '../store/repositories/users.js';
import type { A2aRemoteAgentsTable, Database, NewUser, UserRow } from '../store/schema.js';
import { tokenHint, type TokenVault } from '../auth/agentTokens.js';
import type { Clock } from '../clock.js';
import type { LiveSessions } from '../actors/liveSessions.js';
import { CloseCode } from '../protocol/errors.js';
import { toPresenceView, toUserView, toUserViews } from './views.js';

/** Kinds of an agent registered without them (a blank kind counts as none). */
export const DEFAULT_AGENT_KIND = 'generic';
export const DEFAULT_RUNTIME_KIND = 'websocket';

/**
 * Remote A2A agents (src/a2a/remote/), as registration needs them: the card checked first (a refusal
 * is thrown as a HubError naming the reason), the credential sealed, the row stored with the agent's,
 * and the proxy started once both are committed.
 */
export interface RemoteAgentPort {
  checkCard(cardUrl: string, credential: string | undefined): Promise<{ json: string; description: string }>;
  seal(credential: string): string;
  insert(row: Insertable<A2aRemoteAgentsTable>, trx: Transaction<Database>): Promise<void>;
  added(userId: number): void;
}

export interface AgentsServiceDeps {
  db: Kysely<Database>;
  /** Absent: agents cannot be registered by an A2A card URL. */
  remote?: RemoteAgentPort;
  users: UsersRepo;
  credentials: CredentialsRepo;
  vault: TokenVault;
  clock: Clock;
  sessions: LiveSessions;
}

export interface RegisterAgentInput {
  username: string;
  api_token?: string;
  agent_kind?: string;
  runtime_kind?: string;
  description?: string;
  skills?: AgentSkill[];
  /** runtime_kind 'a2a': the remote agent's card URL, and the credential the hub sends it. */
  card_url?: string;
  credential?: string;
}

/** What an agent's A2A card says about it beyond its name: a field left undefined stays, null clears it. */
export interface AgentCardPatch {
  description?: string | null;
  skills?: AgentSkill[] | null;
}

export interface AgentCardFields {
  id: number;
  username: string;
  description: string | null;
  skills: AgentSkill[];
}

/** The skills column as stored (a JSON array written by `register` or `updateCard`). */
export function skillsOf(row: Pick<UserRow, 'skills'>): AgentSkill[] {
  return row.skills === null ? [] : (JSON.parse(row.skills) as AgentSkill[]);
}

const skillsColumn = (skills: AgentSkill[] | null | undefined): string | null => (skills && skills.length > 0 ? JSON.stringify(skills) : null);

/** A new agent's row: OFFLINE until it connects; `kind` says how it runs and where its description comes from. */
function agentRow(input: RegisterAgentInput, now: string, kind: Pick<NewUser, 'runtime_kind' | 'description'>): NewUser {
  return {
    username: input.username,
    role: 'AGENT',
    actor_type: 'SYSTEM',
    agent_kind: input.agent_kind || DEFAULT_AGENT_KIND,
    ...kind,
    skills: skillsColumn(input.skills),
    status: 'OFFLINE',
    online: 0,
    created_at: now,
    updated_at: now,
  };
}

export interface AgentListQuery {
  excludeRole?: string;
  q?: string;
  status?: string;
  kind?: string;
  id?: number;
  page: number;
  limit: number;
}

/** An agent's view with its token hint; Butler holds no token and shows none. */
function machineView(row: MachineUserRow): UserView {
  const { token_hint, token_updated_at } = row;
  return toUserView(row, token_hint === null || token_updated_at === null ? undefined : { token_hint, token_updated_at });
}

export function createAgentsService(deps: AgentsServiceDeps) {
  const { db, users, credentials, vault, clock, sessions } = deps;

  /** The agent with this id; Butler is refused with `butlerError`, anyone else is not found. */
  async function requireAgent(id: number, butlerError: () => Error): Promise<UserRow> {
    const user = await users.findById(id);
    if (user?.role === 'BUTLER') throw butlerError();
    if (!user || user.role !== 'AGENT') throw Errors.notFound('agent');
    return user;
  }

  async function assertTokenFree(token: string, ownerId?: number): Promise<void> {
    const holder = await credentials.machineByLookup(vault.lookup(token));
    if (holder && holder.user_id !== ownerId) throw Errors.tokenTaken();
  }

  /** A remote A2A agent: no api_token (the hub calls it); its card is fetched and checked first. */
  async function registerRemote(input: RegisterAgentInput, cardUrl: string): Promise<UserView & { card_url: string }> {
    const remote = deps.remote;
    if (!remote) throw Errors.badRequest('this hub does not register remote A2A agents');
    const card = await remote.checkCard(cardUrl, input.credential);
    const now = clock();
    try {
      const user = await db.transaction().execute(async (trx) => {
        // The card's own description unless the admin gave one.
        const row = await users.insert(
          agentRow(input, now, { runtime_kind: input.runtime_kind!, description: input.description ?? (card.description || null) }),
          trx,
        );
        const credential = input.credential === undefined ? null : remote.seal(input.credential);
        await remote.insert({ user_id: row.id, card_url: cardUrl, credential, card: card.json, created_at: now, updated_at: now }, trx);
        return row;
      });
      remote.added(user.id);
      return { ...toUserView(user), card_url: cardUrl };
    } catch (err) {
      if (isUniqueViolation(err)) throw Errors.usernameTaken();
      throw err;
    }
  }

  return {
    async register(input: RegisterAgentInput): Promise<UserView & { api_token?: string; card_url?: string }> {
      if (await users.findByUsername(input.username)) throw Errors.usernameTaken();
      if (input.card_url !== undefined) return registerRemote(input, input.card_url);
      const token = input.api_token ?? vault.generate();
      await assertTokenFree(token);
      const now = clock();
      try {
        const user = await db.transaction().execute(async (trx) => {
          // The older hub's defaults: its dashboards show "AGENT · —" for a kind left null.
          const row = await users.insert(
            agentRow(input, now, { runtime_kind: input.runtime_kind || DEFAULT_RUNTIME_KIND, description: input.description ?? null }),
            trx,
          );
          await credentials.setMachineToken(row.id, vault.seal(token), now, trx);
          return row;
        });
        return { ...toUserView(user, { token_hint: tokenHint(token), token_updated_at: now }), api_token: token };
      } catch (err) {
        if (isUniqueViolation(err)) {
          // Either constraint can lose a race; tell the caller which one.
          throw (await users.findByUsername(input.username)) ? Errors.usernameTaken() : Errors.tokenTaken();
        }
        throw err;
      }
    },

    async list(query: AgentListQuery): Promise<{ items: UserView[]; total: number }> {
      const { rows, total } = await users.listMachines({
        excludeRole: query.excludeRole,
        q: query.q,
        status: query.status,
        kind: query.kind,
        id: query.id,
        offset: (query.page - 1) * query.limit,
        limit: query.limit,
      });
      return { items: rows.map(machineView), total };
    },

    /** Agents (not Butler) counted by presence and kind; nothing about humans, whom members may not list. */
    async counts(): Promise<AgentCounts> {
      const { byStatus, byKind } = await users.agentCounts();
      const statuses = new Map<string, number>();
      let total = 0;
      let online = 0;
      for (const row of byStatus) {
        total += row.count;
        if (row.online) online += row.count;
        statuses.set(row.status, (statuses.get(row.status) ?? 0) + row.count);
      }
      const mostFirst = (a: { count: number }, b: { count: number }) => b.count - a.count;
      return {
        total,
        online,
        offline: total - online,
        by_status: [...statuses].map(([status, count]) => ({ status, count })).sort(mostFirst),
        by_kind: byKind.map((r) => ({ kind: r.kind ?? '', count: r.count })).sort(mostFirst),
      };
    },

    async statusList(): Promise<PresenceView[]> {
      const { rows } = await users.list({ roles: ['AGENT'], offset: 0, limit: Number.MAX_SAFE_INTEGER });
      return rows.map(toPresenceView);
    },

    async butler(): Promise<UserView> {
      const butler = await users.findByUsername(BUTLER_USERNAME);
      if (!butler || butler.role !== 'BUTLER') throw Errors.notFound('Butler');
      return (await toUserViews([butler], credentials))[0]!;
    },

    async delete(id: number): Promise<UserRow> {
      const agent = await requireAgent(id, () => Errors.forbidden('Butler is the core agent and cannot be deleted'));
      await users.delete(id);
      sessions.endUser(id, CloseCode.unauthorized, 'agent deleted');
      return agent;
    },

    /** Changes the description and skills its A2A card shows (Butler's card is the hub's own). */
    async updateCard(id: number, patch: AgentCardPatch): Promise<AgentCardFields> {
      await requireAgent(id, () => Errors.forbidden("Butler's card is the hub's own and cannot be changed"));
      const updated = await users.update(id, {
        ...(patch.description !== undefined ? { description: patch.description || null } : {}),
        ...(patch.skills !== undefined ? { skills: skillsColumn(patch.skills) } : {}),
        updated_at: clock(),
      });
      if (!updated) throw Errors.notFound('agent');
      return { id: updated.id, username: updated.username, description: updated.description, skills: skillsOf(updated) };
    },

    async testConnection(token: string): Promise<{ ok: true; message: string; agent_id: number; agent_name: string } | { ok: false; message: string }> {
      const credential = await credentials.machineByLookup(vault.lookup(token));
      const user = credential && (await users.findById(credential.user_id));
      if (user?.role !== 'AGENT') return { ok: false, message: 'api_token is not registered to any agent' };
      return { ok: true, message: `api_token belongs to ${user.username}`, agent_id: user.id, agent_name: user.username };
    },

    /** Replaces the agent's token (generated when not given); the old one stops working at once. */
    async rotateToken(id: number, requested?: string): Promise<{ ok: true; message: string; agent_id: number; api_token: string; token_hint: string }> {
      const user = await requireAgent(id, Errors.butlerHasNoToken);
      const token = requested ?? vault.generate();
      await assertTokenFree(token, id);
      try {
        await credentials.setMachineToken(id, vault.seal(token), clock());
      } catch (err) {
        if (isUniqueViolation(err)) throw Errors.tokenTaken();
        throw err;
      }
      sessions.endUser(id, CloseCode.unauthorized, 'api_token rotated');
      return { ok: true, message: `api_token of ${user.username} rotated`, agent_id: id, api_token: token, token_hint: tokenHint(token) };
    },

    /** The raw token of an agent, decrypted (dev endpoint only). */
    async rawToken(username: string): Promise<{ username: string; role: string; api_token: string }> {
      const user = await users.findByUsername(username);
      if (user?.role === 'BUTLER') throw Errors.butlerHasNoToken();
      const credential = user?.role === 'AGENT' ? await credentials.machineOf(user.id) : undefined;
      if (!user || !credential) throw Errors.notFound('agent');
      return { username: user.username, role: user.role, api_token: vault.open(credential.token_cipher) };
    },
  };
}
export type AgentsService = ReturnType<typeof createAgentsService>;

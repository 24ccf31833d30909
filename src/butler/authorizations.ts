// Authorization requests: a command Butler will run on an agent only once a human approves it.
// The row in the store is the truth, so a request outlives a restart: pending ones get their expiry
// timers back at start, and an approval after a restart still runs the command. Whoever saw the
// request (its approvers, the human who asked, whoever answered) and every admin (admins may answer
// and list any request) hears the outcome as AUTH_STATUS_UPDATE, and the stored AUTH_REQUEST rows
// are rewritten to show it.
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import { Errors } from '../errors.js';
import type { AuthRequestPayload, AuthRequestsQuery, AuthResponseInput } from '../protocol/butler.js';
import { isMachineRole } from '../protocol/roles.js';
import type { AuthorizationsRepo } from '../store/repositories/authorizations.js';
import type { UsersRepo } from '../store/repositories/users.js';
import type { Transaction } from 'kysely';
import type { AuthorizationRow, AuthorizationStatus, Database } from '../store/schema.js';
import type { Clock, TimerHandle, Timers } from '../clock.js';
import type { Pipeline } from '../delivery/pipeline.js';
import type { Principal } from '../delivery/types.js';

export interface NewRequest {
  requester: Principal;
  conversationId: number | null;
  /** The human who must answer; undefined: any admin. */
  approverId?: number;
  agent: Principal;
  command: string;
  reason: string;
}

/** A request as the API lists it: everything but the ids of its chat rows. */
export type AuthorizationView = Omit<AuthorizationRow, 'message_ids'>;

export interface AuthorizationsDeps {
  repo: AuthorizationsRepo;
  users: UsersRepo;
  pipeline: Pipeline;
  butler: Principal;
  clock: Clock;
  /** Runs the expiries (the hub's timers: a test moves them). */
  timers: Timers;
  logger: Logger;
  timeoutMs: number;
  /** Told once per request, after its decision (or expiry) is stored. */
  onDecided(request: AuthorizationRow): void;
  /** Told when a request is made. */
  onRequested?(request: AuthorizationRow): void;
  /** Cluster mode: runs inside an expiry's transaction and throws when this node's lease epoch is stale. */
  fence?: (trx: Transaction<Database>) => Promise<void>;
}

/** Admins an any-admin request is shown to (a hub has a handful). */
const MAX_ADMIN_APPROVERS = 100;

export function toAuthorizationView(row: AuthorizationRow): AuthorizationView {
  const { message_ids: _ids, ...view } = row;
  return view;
}

export function createAuthorizations(deps: AuthorizationsDeps) {
  const { repo, users, pipeline, butler, clock, logger } = deps;
  const timers = new Map<string, TimerHandle>();

  async function adminIds(): Promise<number[]> {
    const { rows } = await users.list({ roles: ['ADMIN'], offset: 0, limit: MAX_ADMIN_APPROVERS });
    return rows.map((r) => r.id);
  }

  /** Everyone who saw the request or has a stake in its outcome. */
  async function audienceOf(row: AuthorizationRow, decidedBy: number | null): Promise<Set<number>> {
    const ids = new Set<number>(await adminIds());
    if (row.approver_id !== null) ids.add(row.approver_id);
    const requester = await users.findById(row.requester_id);
    if (requester && !isMachineRole(requester.role)) ids.add(requester.id);
    if (decidedBy !== null) ids.add(decidedBy);
    return ids;
  }

  function arm(row: AuthorizationRow): void {
    deps.timers.clearTimeout(timers.get(row.action_id));
    const wait = Date.parse(row.expires_at) - Date.parse(clock());
    // BUTLER_AUTH_TIMEOUT is capped at 24 days, within what one Node timer can wait.
    const timer = deps.timers.setTimeout(
      () => {
        timers.delete(row.action_id);
        void expire(row.action_id);
      },
      Math.max(wait, 0),
    );
    timer.unref?.();
    timers.set(row.action_id, timer);
  }

  /** Stores the outcome, then tells everyone; false when the request was no longer pending. */
  async function settle(
    row: AuthorizationRow,
    status: Exclude<AuthorizationStatus, 'PENDING'>,
    decidedBy: number | null,
    fence?: AuthorizationsDeps['fence'],
    note: string | null = null,
  ): Promise<boolean> {
    const at = clock();
    if (!(await repo.decide(row.action_id, status, decidedBy, at, fence, note))) return false;
    deps.timers.clearTimeout(timers.get(row.action_id));
    timers.delete(row.action_id);
    const decided: AuthorizationRow = { ...row, status, decided_by: decidedBy, decided_at: at, decision_note: note };
    try {
      const messageIds = JSON.parse(row.message_ids) as number[];
      await repo.markMessages(messageIds, (stored) => JSON.stringify({ ...(JSON.parse(stored) as object), status }));
      for (const userId of await audienceOf(row, decidedBy)) {
        pipeline.submit(butler, { type: 'AUTH_STATUS_UPDATE', payload: { action_id: row.action_id, status }, target_id: userId });
      }
    } catch (err) {
      logger.error({ err, actionId: row.action_id }, 'could not announce an authorization decision');
    }
    logger.info({ actionId: row.action_id, status, agent: row.target_agent_name, decidedBy }, 'authorization request settled');
    deps.onDecided(decided);
    return true;
  }

  async function expire(actionId: string): Promise<void> {
    try {
      const row = await repo.find(actionId);
      // Only the leader's timers expire requests; a deposed leader's write is refused by the fence.
      if (row?.status === 'PENDING') await settle(row, 'EXPIRED', null, deps.fence);
    } catch (err) {
      logger.error({ err, actionId }, 'could not expire an authorization request');
    }
  }

  return {
    /** Stores a PENDING request, shows it to its approvers as AUTH_REQUEST and starts its clock. */
    async request(input: NewRequest): Promise<AuthorizationRow> {
      const now = clock();
      const row: AuthorizationRow = {
        action_id: randomUUID(),
        requester_id: input.requester.id,
        conversation_id: input.conversationId,
        approver_id: input.approverId ?? null,
        target_agent_id: input.agent.id,
        target_agent_name: input.agent.username,
        command: input.command,
        reason: input.reason,
        status: 'PENDING',
        message_ids: '[]',
        decided_by: null,
        created_at: now,
        expires_at: new Date(Date.parse(now) + deps.timeoutMs).toISOString(),
        decided_at: null,
        decision_note: null,
      };
      await repo.insert(row);
      const payload: AuthRequestPayload = {
        action_id: row.action_id,
        target_agent_id: row.target_agent_id,
        target_agent_name: row.target_agent_name,
        command: row.command,
        reason: row.reason,
        status: 'PENDING',
      };
      // The asker's own request appears in the conversation it came from; an admin sees it in their
      // conversation with Butler.
      const shownTo = row.approver_id !== null ? [row.approver_id] : await adminIds();
      const posted = await Promise.allSettled(
        shownTo.map((userId) =>
          pipeline.post(butler, {
            type: 'AUTH_REQUEST',
            payload,
            target_id: userId,
            conversation_id: userId === input.requester.id ? (input.conversationId ?? undefined) : undefined,
          }),
        ),
      );
      const ids = posted.flatMap((p) => (p.status === 'fulfilled' && p.value.stored ? [p.value.stored.id] : []));
      await repo.setMessageIds(row.action_id, ids);
      row.message_ids = JSON.stringify(ids);
      arm(row);
      deps.onRequested?.(row);
      logger.info(
        { actionId: row.action_id, agent: row.target_agent_name, requester: input.requester.id, approver: row.approver_id ?? 'admins' },
        'authorization requested',
      );
      return row;
    },

    /** A human's answer (HTTP, AUTH_RESPONSE frame or MCP), with the note they left, if any. */
    async respond(caller: Principal, input: AuthResponseInput): Promise<{ status: 'processed'; action_id: string; result: string }> {
      const row = await repo.find(input.action_id);
      if (!row) throw Errors.notFound('authorization request');
      if (caller.role !== 'ADMIN' && row.approver_id !== caller.id) {
        throw Errors.forbidden(
          row.approver_id === null ? 'only an admin may answer this authorization request' : 'this authorization request was sent to another user',
        );
      }
      if (row.status !== 'PENDING') throw Errors.conflict(`authorization request already ${row.status.toLowerCase()}`);
      if (Date.parse(row.expires_at) <= Date.parse(clock())) {
        await settle(row, 'EXPIRED', null);
        throw Errors.conflict('authorization request expired');
      }
      if (!(await settle(row, input.approved ? 'APPROVED' : 'REJECTED', caller.id, undefined, input.note || null))) {
        const now = await repo.find(input.action_id);
        throw Errors.conflict(`authorization request already ${(now?.status ?? 'decided').toLowerCase()}`);
      }
      const result = input.approved
        ? `approved: the command is being sent to ${row.target_agent_name}`
        : `rejected: the command will not be sent to ${row.target_agent_name}`;
      return { status: 'processed', action_id: row.action_id, result };
    },

    /** Requests the caller may see: admins see all, others what they asked for or must answer. */
    async list(caller: Principal, query: AuthRequestsQuery): Promise<AuthorizationView[]> {
      const rows = await repo.list({
        visibleTo: caller.role === 'ADMIN' ? undefined : caller.id,
        status: query.status,
        limit: query.limit,
        beforeCreatedAt: query.before,
        afterActionId: query.before_action_id,
      });
      return rows.map(toAuthorizationView);
    },

    /** Re-arms the expiry of every pending request (after a restart); overdue ones expire now. */
    async start(): Promise<number> {
      const pending = await repo.pending();
      for (const row of pending) arm(row);
      return pending.length;
    },

    stop(): void {
      for (const timer of timers.values()) deps.timers.clearTimeout(timer);
      timers.clear();
    },
  };
}
export type Authorizations = ReturnType<typeof createAuthorizations>;

// Authorization requests (Butler's commands waiting for a human). Decisions are conditional
// updates on `status = 'PENDING'`, so two answers racing each other cannot both win.
import type { Kysely, Transaction } from 'kysely';
import type { AuthorizationRow, AuthorizationStatus, Database, NewAuthorization } from '../schema.js';

export interface AuthorizationQuery {
  /** Requests this user may answer or asked for; undefined: every request (admins). */
  visibleTo?: number;
  status?: AuthorizationStatus;
  limit: number;
  beforeCreatedAt?: string;
  /** The last row of the previous page within its instant (pages are ordered created_at desc, action_id asc). */
  afterActionId?: string;
}

export function createAuthorizationsRepo(db: Kysely<Database>) {
  return {
    async insert(row: NewAuthorization): Promise<void> {
      await db.insertInto('authorization_requests').values(row).execute();
    },

    async find(actionId: string): Promise<AuthorizationRow | undefined> {
      return db.selectFrom('authorization_requests').selectAll().where('action_id', '=', actionId).executeTakeFirst();
    },

    async setMessageIds(actionId: string, ids: readonly number[]): Promise<void> {
      await db
        .updateTable('authorization_requests')
        .set({ message_ids: JSON.stringify(ids) })
        .where('action_id', '=', actionId)
        .execute();
    },

    /**
     * Stores the outcome of a request still PENDING; false when it was not. `fence` runs first in
     * the same transaction (cluster mode: the leader's epoch is still current) and refuses by throwing.
     */
    async decide(
      actionId: string,
      status: Exclude<AuthorizationStatus, 'PENDING'>,
      decidedBy: number | null,
      at: string,
      fence?: (trx: Transaction<Database>) => Promise<void>,
      note: string | null = null,
    ): Promise<boolean> {
      const update = (q: Kysely<Database>) =>
        q
          .updateTable('authorization_requests')
          .set({ status, decided_by: decidedBy, decided_at: at, decision_note: note })
          .where('action_id', '=', actionId)
          .where('status', '=', 'PENDING')
          .executeTakeFirst();
      const result = fence
        ? await db.transaction().execute(async (trx) => {
            await fence(trx);
            return update(trx);
          })
        : await update(db);
      return Number(result.numUpdatedRows) === 1;
    },

    async pending(): Promise<AuthorizationRow[]> {
      return db.selectFrom('authorization_requests').selectAll().where('status', '=', 'PENDING').orderBy('expires_at').execute();
    },

    async list(query: AuthorizationQuery): Promise<AuthorizationRow[]> {
      let builder = db.selectFrom('authorization_requests').selectAll();
      if (query.visibleTo !== undefined) {
        const id = query.visibleTo;
        builder = builder.where((eb) => eb.or([eb('approver_id', '=', id), eb('requester_id', '=', id)]));
      }
      if (query.status) builder = builder.where('status', '=', query.status);
      const before = query.beforeCreatedAt;
      if (before && query.afterActionId) {
        const after = query.afterActionId;
        builder = builder.where((eb) => eb.or([eb('created_at', '<', before), eb.and([eb('created_at', '=', before), eb('action_id', '>', after)])]));
      } else if (before) {
        builder = builder.where('created_at', '<', before);
      }
      return builder.orderBy('created_at', 'desc').orderBy('action_id').limit(query.limit).execute();
    },

    /** Rewrites the status inside the stored AUTH_REQUEST rows, so history and resume show the decision. */
    async markMessages(ids: readonly number[], payload: (stored: string) => string): Promise<void> {
      if (ids.length === 0) return;
      const rows = await db
        .selectFrom('messages')
        .select(['id', 'payload'])
        .where('id', 'in', [...ids])
        .execute();
      for (const row of rows) {
        await db
          .updateTable('messages')
          .set({ payload: payload(row.payload) })
          .where('id', '=', row.id)
          .execute();
      }
    },
  };
}
export type AuthorizationsRepo = ReturnType<typeof createAuthorizationsRepo>;

// Connector rows (one current at a time) and their log. Every change of a row checks the version it
// was read at and bumps it, so of two admins racing only one write lands.
import { sql, type Insertable, type Kysely } from 'kysely';
import type { ConnectorLogRow, ConnectorLogsTable, ConnectorRow, ConnectorsTable, Database, NewConnector } from '../schema.js';

export type ConnectorPatch = Partial<Omit<ConnectorsTable, 'id' | 'version' | 'created_at' | 'is_current'>> & { updated_at: string };

export type NewConnectorLog = Omit<Insertable<ConnectorLogsTable>, 'id'>;

export function createConnectorsRepo(db: Kysely<Database>) {
  return {
    async current(): Promise<ConnectorRow | undefined> {
      return db.selectFrom('connectors').selectAll().where('is_current', '=', 1).executeTakeFirst();
    },

    async findById(id: number): Promise<ConnectorRow | undefined> {
      return db.selectFrom('connectors').selectAll().where('id', '=', id).executeTakeFirst();
    },

    /**
     * Inserts a connector as the current one; the previous current one (if any) is retired with
     * `retire` applied, in the same transaction. Returns both rows.
     */
    async insertCurrent(
      connector: Omit<NewConnector, 'is_current' | 'version'>,
      retire: (previous: ConnectorRow) => ConnectorPatch,
    ): Promise<{ created: ConnectorRow; previous?: ConnectorRow }> {
      return db.transaction().execute(async (trx) => {
        const old = await trx.selectFrom('connectors').selectAll().where('is_current', '=', 1).executeTakeFirst();
        let previous: ConnectorRow | undefined;
        if (old) {
          previous = await trx
            .updateTable('connectors')
            .set({ ...retire(old), is_current: 0, version: sql<number>`version + 1` })
            .where('id', '=', old.id)
            .where('version', '=', old.version)
            .returningAll()
            .executeTakeFirst();
          if (!previous) throw new ConnectorVersionConflict(old.id);
        }
        const created = await trx
          .insertInto('connectors')
          .values({ ...connector, is_current: 1 })
          .returningAll()
          .executeTakeFirstOrThrow();
        return { created, previous };
      });
    },

    /** Writes `patch` if the row is still at `version`; undefined when another write got there first. */
    async update(id: number, version: number, patch: ConnectorPatch): Promise<ConnectorRow | undefined> {
      return db
        .updateTable('connectors')
        .set({ ...patch, version: sql<number>`version + 1` })
        .where('id', '=', id)
        .where('version', '=', version)
        .returningAll()
        .executeTakeFirst();
    },

    async insertLog(entry: NewConnectorLog): Promise<ConnectorLogRow> {
      return db.insertInto('connector_logs').values(entry).returningAll().executeTakeFirstOrThrow();
    },

    /** Newest first; `beforeId` continues below the last entry of the previous page. */
    async logs(connectorId: number, beforeId: number | undefined, limit: number): Promise<ConnectorLogRow[]> {
      let builder = db.selectFrom('connector_logs').selectAll().where('connector_id', '=', connectorId);
      if (beforeId !== undefined) builder = builder.where('id', '<', beforeId);
      return builder.orderBy('id', 'desc').limit(limit).execute();
    },
  };
}
export type ConnectorsRepo = ReturnType<typeof createConnectorsRepo>;

/** The row changed between read and write (another request won the race). */
export class ConnectorVersionConflict extends Error {
  constructor(readonly connectorId: number) {
    super(`connector ${connectorId} changed while this request was using it`);
    this.name = 'ConnectorVersionConflict';
  }
}

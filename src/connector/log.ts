// The connector's own log (what an admin reads under /logs): lifecycle actions, verification
// results, inbound events accepted or filtered, outbound sends and errors. Each entry also goes to
// the hub's log. Pages are newest first behind an opaque cursor.
import type { Logger } from 'pino';
import type { ConnectorMeter } from './metrics.js';
import { Errors } from '../errors.js';
import type { ConnectorLogView } from '../protocol/connector.js';
import type { LogLevel } from '../protocol/messages.js';
import type { ConnectorsRepo } from '../store/repositories/connectors.js';
import type { ConnectorLogRow } from '../store/schema.js';
import type { Clock } from '../clock.js';

const CURSOR_PREFIX = 'log:';

function encodeCursor(id: number): string {
  return Buffer.from(`${CURSOR_PREFIX}${id}`).toString('base64url');
}

function decodeCursor(cursor: string): number {
  const text = Buffer.from(cursor, 'base64url').toString('utf8');
  const id = text.startsWith(CURSOR_PREFIX) ? Number(text.slice(CURSOR_PREFIX.length)) : NaN;
  if (!Number.isSafeInteger(id) || id < 1 || encodeCursor(id) !== cursor)
    throw Errors.badRequest('cursor is not valid: pass the cursor of the previous page, or none');
  return id;
}

function toLogView(row: ConnectorLogRow): ConnectorLogView {
  const view: ConnectorLogView = { id: String(row.id), level: row.level, action: row.action, detail: row.detail, timestamp: row.created_at };
  if (row.trace_id !== null) view.trace_id = row.trace_id;
  return view;
}

const PINO_LEVEL: Record<LogLevel, 'info' | 'warn' | 'error'> = { INFO: 'info', SUCCESS: 'info', WARNING: 'warn', ERROR: 'error' };

export function createConnectorLog(deps: { repo: ConnectorsRepo; clock: Clock; logger: Logger; meter?: ConnectorMeter }) {
  const { repo, clock, logger } = deps;
  /** Writes not yet finished: shutdown waits for them before the store closes. */
  const pending = new Set<Promise<void>>();

  async function store(connectorId: number, level: LogLevel, action: string, detail: string, traceId?: string): Promise<void> {
    try {
      await repo.insertLog({ connector_id: connectorId, level, action, detail, trace_id: traceId ?? null, created_at: clock() });
    } catch (err) {
      logger.error({ err, connectorId, action }, 'could not store a connector log entry');
    }
  }

  return {
    /** Writes an entry; a failure to store it is logged, never thrown (the event itself went on). */
    write(connectorId: number, level: LogLevel, action: string, detail: string, traceId?: string): Promise<void> {
      logger[PINO_LEVEL[level]]({ connectorId, action, traceId }, `connector: ${detail}`);
      deps.meter?.entry(level, action);
      const write = store(connectorId, level, action, detail, traceId);
      pending.add(write);
      void write.finally(() => pending.delete(write));
      return write;
    },

    async flushed(): Promise<void> {
      while (pending.size > 0) await Promise.all([...pending]);
    },

    async page(connectorId: number, cursor: string | undefined, limit: number): Promise<{ items: ConnectorLogView[]; cursor: string }> {
      const beforeId = cursor === undefined ? undefined : decodeCursor(cursor);
      const rows = await repo.logs(connectorId, beforeId, limit + 1);
      const page = rows.slice(0, limit);
      return { items: page.map(toLogView), cursor: rows.length > limit ? encodeCursor(page[page.length - 1]!.id) : '' };
    },
  };
}
export type ConnectorLog = ReturnType<typeof createConnectorLog>;

// Reads that may be reused while the SQLite file has not changed. SQLite says so cheaply:
// `data_version` changes whenever another connection (the writer thread: messages, presence)
// commits, and `total_changes()` whenever this connection writes (registrations, rotations,
// deletions, a dev reset). A result read after mark M is reused only while the mark is still M,
// so it is never older than what the store holds. PostgreSQL has no such mark: it always reads.
import { CompiledQuery, SqliteAdapter, type Kysely } from 'kysely';

const MARK = CompiledQuery.raw('select (select data_version from pragma_data_version) as v, total_changes() as c') as CompiledQuery<{ v: number; c: number }>;

export interface UnchangedCache<T> {
  /** The result for `key` read before with the store unchanged since, or a fresh one from `read`. Results are shared: never change them. */
  get(key: string, read: () => Promise<T>): Promise<T>;
}

/** Undefined on PostgreSQL. At most `capacity` keys, the least recently used dropped first. */
export function createUnchangedCache<DB, T>(db: Kysely<DB>, capacity: number): UnchangedCache<T> | undefined {
  if (!(db.getExecutor().adapter instanceof SqliteAdapter)) return undefined;
  const entries = new Map<string, { mark: string; value: T }>();
  return {
    async get(key, read) {
      const [row] = (await db.executeQuery(MARK)).rows;
      const mark = `${row!.v}:${row!.c}`;
      const known = entries.get(key);
      entries.delete(key);
      if (known && known.mark === mark) {
        entries.set(key, known);
        return known.value;
      }
      // Read after the mark: a commit in between changes the next mark, so this is read again then.
      const value = await read();
      if (entries.size >= capacity) entries.delete(entries.keys().next().value!);
      entries.set(key, { mark, value });
      return value;
    },
  };
}

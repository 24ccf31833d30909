// Who a user id is (name and role), cached for the message pipeline: routing a frame must not cost
// a query. Services that delete users or change roles tell the directory to forget them.
import type { Role } from '../protocol/roles.js';
import type { Principal } from './types.js';
import type { UsersRepo } from '../store/repositories/users.js';

export function toPrincipal(row: { id: number; username: string; role: string }): Principal {
  return { id: row.id, username: row.username, role: row.role as Role };
}

export function createDirectory(deps: { users: UsersRepo; maxEntries?: number }) {
  const cache = new Map<number, Principal>();
  const maxEntries = deps.maxEntries ?? 100_000;

  const remember = (p: Principal) => {
    if (cache.size >= maxEntries) cache.delete(cache.keys().next().value!);
    cache.set(p.id, p);
  };

  return {
    /** The cached entry, if any (no query). */
    peek(id: number): Principal | undefined {
      return cache.get(id);
    },
    /** Loads the given ids that are not cached yet; unknown ids stay absent. */
    async load(ids: Iterable<number>): Promise<void> {
      for (const id of new Set(ids)) {
        if (cache.has(id)) continue;
        const row = await deps.users.findById(id);
        if (row) remember(toPrincipal(row));
      }
    },
    remember,
    forget(id: number): void {
      cache.delete(id);
    },
    clear(): void {
      cache.clear();
    },
  };
}
export type Directory = ReturnType<typeof createDirectory>;

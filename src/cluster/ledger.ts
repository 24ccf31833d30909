// The ledger port on Redis (see delivery/ledger.ts): one hash of the open entries' `meta` and one
// string per entry's text, under the cluster's prefix, so the next leader reads what a dead one left.
// Writes are fire and forget, and skipped while Redis is away: the ledger is a courtesy to a
// successor, never in the way of the writer.
import type { Ledger, LedgerEntry } from '../delivery/ledger.js';
import type { RedisLink } from './bus/redis.js';

export function createRedisLedger(link: Pick<RedisLink, 'commands' | 'up'>, key: string): Ledger {
  const { commands } = link;
  return {
    append(id, meta, text) {
      if (link.up)
        void commands
          .multi()
          .hsetnx(key, id, meta)
          .append(`${key}:${id}`, text)
          .exec()
          .catch(() => undefined);
    },
    remove(id) {
      if (link.up)
        void commands
          .multi()
          .hdel(key, id)
          .del(`${key}:${id}`)
          .exec()
          .catch(() => undefined);
    },
    async take() {
      const open = await commands.hgetall(key);
      const out: LedgerEntry[] = [];
      for (const [id, meta] of Object.entries(open)) {
        const text = (await commands.get(`${key}:${id}`)) ?? '';
        await commands.multi().hdel(key, id).del(`${key}:${id}`).exec();
        out.push({ id, meta, text });
      }
      return out;
    },
  };
}

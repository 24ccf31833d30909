// Who is alive and who holds which agent's sockets, on Redis (as Centrifugo keeps presence: hashes
// that die with their node). Each node beats into one sorted set (score: Redis's own clock, so the
// nodes' clocks never matter) and keeps one hash of user id → its open sockets of that user. A
// node silent for the TTL is dead: the first node to notice removes it (atomically, so exactly one
// does) and learns which agents it held that no live node still holds; those go OFFLINE.
//
// Presence changes decided on different nodes race to the store, so every decision takes an order
// here (`seq`, from Redis's clock, never going back) and the store applies a change only over an
// older one. Every script runs whole on Redis, which is what makes a decision and its order one.
// (One Redis, not Redis Cluster: the scripts name keys they build.)
import type { Redis } from 'ioredis';

/** Allocates the next presence order: Redis's clock in µs, strictly increasing. */
const NEXT_SEQ = `
local function next_seq(seq_key)
  local t = redis.call('TIME')
  local v = tonumber(t[1]) * 1000000 + tonumber(t[2])
  local last = tonumber(redis.call('GET', seq_key) or '0')
  if v <= last then v = last + 1 end
  redis.call('SET', seq_key, string.format('%.0f', v))
  return v
end
local function now_ms()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
local function live_total(nodes_key, prefix, ttl, user)
  local total = 0
  for _, node in ipairs(redis.call('ZRANGEBYSCORE', nodes_key, now_ms() - ttl, '+inf')) do
    total = total + tonumber(redis.call('HGET', prefix .. node, user) or '0')
  end
  return total
end
`;

// KEYS: nodes, seq. ARGV: prefix, node, ttl. Returns 1 when the node was not registered (first
// beat, or Redis lost it, or it was declared dead): its hash must be written again.
const BEAT = `${NEXT_SEQ}
local added = redis.call('ZADD', KEYS[1], now_ms(), ARGV[2])
return added`;

// KEYS: nodes, seq. ARGV: prefix, node, ttl, user, delta. Returns {total on live nodes, seq,
// registered}. A node that is not registered (declared dead, or Redis lost it) changes nothing: its
// hash is gone, and only a whole registration (its next beat) makes it true again; re-adding it here
// would make the next beat think it never left.
const CHANGE = `${NEXT_SEQ}
local key = ARGV[1] .. ARGV[2]
local registered = redis.call('ZSCORE', KEYS[1], ARGV[2])
if registered then
  local n = redis.call('HINCRBY', key, ARGV[4], tonumber(ARGV[5]))
  if n <= 0 then redis.call('HDEL', key, ARGV[4]) end
  redis.call('ZADD', KEYS[1], now_ms(), ARGV[2])
end
return {live_total(KEYS[1], ARGV[1], tonumber(ARGV[3]), ARGV[4]), next_seq(KEYS[2]), registered and 1 or 0}`;

// KEYS: nodes, seq. ARGV: prefix, node, ttl, then user/count pairs: this node's hash, replaced.
const REGISTER = `${NEXT_SEQ}
local key = ARGV[1] .. ARGV[2]
redis.call('DEL', key)
for i = 4, #ARGV, 2 do redis.call('HSET', key, ARGV[i], ARGV[i + 1]) end
redis.call('ZADD', KEYS[1], now_ms(), ARGV[2])
return next_seq(KEYS[2])`;

// KEYS: nodes, seq. ARGV: prefix, self, ttl. Removes dead nodes; returns {dead nodes..., '', user,
// seq, user, seq...}: the users they held that no live node holds.
const REAP = `${NEXT_SEQ}
local ttl = tonumber(ARGV[3])
local dead = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', '(' .. (now_ms() - ttl))
local out = {}
local gone = {}
for _, node in ipairs(dead) do
  if node ~= ARGV[2] and redis.call('ZREM', KEYS[1], node) == 1 then
    table.insert(out, node)
    local users = redis.call('HKEYS', ARGV[1] .. node)
    redis.call('DEL', ARGV[1] .. node)
    for _, user in ipairs(users) do gone[user] = true end
  end
end
table.insert(out, '')
for user, _ in pairs(gone) do
  if live_total(KEYS[1], ARGV[1], ttl, user) == 0 then
    table.insert(out, user)
    table.insert(out, string.format('%.0f', next_seq(KEYS[2])))
  end
end
return out`;

// KEYS: nodes, seq. ARGV: prefix, ttl, users... Returns {user, seq, ...} for those no live node holds.
const UNHELD = `${NEXT_SEQ}
local out = {}
for i = 3, #ARGV do
  if live_total(KEYS[1], ARGV[1], tonumber(ARGV[2]), ARGV[i]) == 0 then
    table.insert(out, ARGV[i])
    table.insert(out, string.format('%.0f', next_seq(KEYS[2])))
  end
end
return out`;

// KEYS: nodes. ARGV: ttl. The live nodes with their last beat (Redis ms).
const LIVE = `${NEXT_SEQ}
return redis.call('ZRANGEBYSCORE', KEYS[1], now_ms() - tonumber(ARGV[1]), '+inf', 'WITHSCORES')`;

export interface Decision {
  userId: number;
  seq: number;
}

export interface RegistryDeps {
  redis: Redis;
  /** Key prefix: the cluster's name. */
  name: string;
  nodeId: string;
  ttlMs: number;
}

type Scripted = Redis &
  Record<'hubBeat' | 'hubChange' | 'hubRegister' | 'hubReap' | 'hubUnheld' | 'hubLive', (...args: Array<string | number>) => Promise<unknown>>;

export function createRegistry(deps: RegistryDeps) {
  const { nodeId, ttlMs } = deps;
  const redis = deps.redis as Scripted;
  const nodesKey = `${deps.name}:nodes`;
  const seqKey = `${deps.name}:presence:seq`;
  const prefix = `${deps.name}:presence:`;
  const scripts = { hubBeat: BEAT, hubChange: CHANGE, hubRegister: REGISTER, hubReap: REAP, hubUnheld: UNHELD, hubLive: LIVE };
  for (const [name, lua] of Object.entries(scripts)) {
    if (!(name in redis)) redis.defineCommand(name, { numberOfKeys: name === 'hubLive' ? 1 : 2, lua });
  }
  const pairs = (flat: string[]): Decision[] => {
    const out: Decision[] = [];
    for (let i = 0; i + 1 < flat.length; i += 2) out.push({ userId: Number(flat[i]), seq: Number(flat[i + 1]) });
    return out;
  };

  return {
    /** Beats; true when this node was not registered (its hash must be written again). */
    async beat(): Promise<boolean> {
      return (await redis.hubBeat(nodesKey, seqKey, prefix, nodeId, ttlMs)) === 1;
    },

    /** Replaces this node's hash with `counts` (user id → sockets); returns an order for re-asserting them. */
    async register(counts: ReadonlyMap<number, number>): Promise<number> {
      const args: Array<string | number> = [];
      for (const [user, n] of counts) if (n > 0) args.push(user, n);
      return Number(await redis.hubRegister(nodesKey, seqKey, prefix, nodeId, ttlMs, ...args));
    },

    /**
     * `userId` is held here once more (+1) or once less (-1): how many the live nodes hold now, the
     * decision's order, and whether this node was registered (if not, nothing changed: register again).
     */
    async change(userId: number, delta: 1 | -1): Promise<{ total: number; seq: number; registered: boolean }> {
      const [total, seq, registered] = (await redis.hubChange(nodesKey, seqKey, prefix, nodeId, ttlMs, userId, delta)) as [number, number, number];
      return { total: Number(total), seq: Number(seq), registered: Number(registered) === 1 };
    },

    /** Removes nodes silent for the TTL; returns them and the users only they held. */
    async reap(): Promise<{ dead: string[]; offline: Decision[] }> {
      const out = (await redis.hubReap(nodesKey, seqKey, prefix, nodeId, ttlMs)) as string[];
      const split = out.indexOf('');
      return { dead: out.slice(0, split), offline: pairs(out.slice(split + 1)) };
    },

    /** Of `userIds`, those no live node holds a socket of, each with an order for going OFFLINE. */
    async unheld(userIds: readonly number[]): Promise<Decision[]> {
      if (userIds.length === 0) return [];
      return pairs((await redis.hubUnheld(nodesKey, seqKey, prefix, ttlMs, ...userIds)) as string[]);
    },

    /** The live nodes, with how long ago each beat (ms). */
    async live(): Promise<Array<{ nodeId: string; lastBeatMsAgo: number }>> {
      const flat = (await redis.hubLive(nodesKey, ttlMs)) as string[];
      const nodes: Array<{ nodeId: string; beat: number }> = [];
      for (let i = 0; i + 1 < flat.length; i += 2) nodes.push({ nodeId: flat[i]!, beat: Number(flat[i + 1]) });
      const newest = Math.max(...nodes.map((n) => n.beat));
      return nodes.map((n) => ({ nodeId: n.nodeId, lastBeatMsAgo: newest - n.beat }));
    },

    /** Leaves the cluster on a clean stop: the others need not wait for the TTL. */
    async leave(): Promise<Decision[]> {
      const held = await redis.hkeys(prefix + nodeId);
      await redis.del(prefix + nodeId);
      await redis.zrem(nodesKey, nodeId);
      return this.unheld(held.map(Number));
    },
  };
}
export type Registry = ReturnType<typeof createRegistry>;

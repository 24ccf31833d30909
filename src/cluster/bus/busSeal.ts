// Seals what nodes say to each other on Redis, so that whoever can publish on the cluster's
// channels without the cluster's secret cannot speak for a node: without a seal a forged batch
// delivered a CHAT "from Butler" and a forged control message closed a member's sockets.
//
// Each message goes out as `v1 <stream> <seq> <ms> <mac> <text>`: the stream names the sending
// process (its node id and a random part per start), `seq` counts its messages, `ms` is its clock,
// and the MAC is HMAC-SHA256 over the channel and all of these with a key derived (HKDF) from the
// cluster's secret. A receiver drops a message whose MAC does not match (forged), whose time is
// further than `maxSkewMs` from its own (replayed later, or a clock far off), or whose `seq` is not
// above the last one it took from that stream (replayed at once: one node publishes on one
// connection, so its messages arrive in order).
import { createHmac, hkdfSync, randomBytes, timingSafeEqual } from 'node:crypto';

export type Refusal = 'unsealed' | 'forged' | 'stale' | 'replayed';
export type Opened = { ok: true; node: string; text: string } | { ok: false; reason: Refusal };

export interface BusSealOptions {
  /** The cluster's secret (CLUSTER_SECRET, or the JWT secret every node shares). */
  secret: string;
  nodeId: string;
  /** How far a message's time may be from the receiver's (default 30 s). */
  maxSkewMs?: number;
  now?: () => number;
}

const VERSION = 'v1';
const MAC_CHARS = 43; // 32 bytes, base64url without padding

export function createBusSeal(options: BusSealOptions) {
  const key = Buffer.from(hkdfSync('sha256', options.secret, 'agent-hub', 'cluster-bus-v1', 32));
  const now = options.now ?? Date.now;
  const maxSkewMs = options.maxSkewMs ?? 30_000;
  const stream = `${options.nodeId}/${randomBytes(4).toString('hex')}`;
  const ownPrefix = `${VERSION} ${stream} `;
  let seq = 0;
  /** The last `seq` taken from each stream, and when (streams silent longer than the skew are forgotten). */
  const seen = new Map<string, { seq: number; at: number }>();
  let lastSweep = now();

  const mac = (channel: string, head: string, text: string) => createHmac('sha256', key).update(channel).update('\n').update(head).update(text).digest();

  function sweep(t: number): void {
    if (t - lastSweep < maxSkewMs) return;
    lastSweep = t;
    for (const [s, v] of seen) if (t - v.at > 2 * maxSkewMs) seen.delete(s);
  }

  return {
    /** This process's stream (node id / random part). */
    stream,

    seal(channel: string, text: string): string {
      seq += 1;
      const head = `${VERSION} ${stream} ${seq} ${now()} `;
      return `${head}${mac(channel, head, text).toString('base64url')} ${text}`;
    },

    /** Whether the message is this process's own (it hears what it publishes): skipped unchecked. */
    isOwn(sealed: string): boolean {
      return sealed.startsWith(ownPrefix);
    },

    open(channel: string, sealed: string): Opened {
      // `v1 <stream> <seq> <ms> <mac> <text>`: four spaces before the MAC, one after it.
      let at = 0;
      const cuts: number[] = [];
      for (let i = 0; i < 4; i++) {
        at = sealed.indexOf(' ', at);
        if (at < 0) return { ok: false, reason: 'unsealed' };
        cuts.push(at++);
      }
      const macEnd = at + MAC_CHARS;
      if (sealed.slice(0, cuts[0]) !== VERSION || sealed.charCodeAt(macEnd) !== 32) return { ok: false, reason: 'unsealed' };
      const head = sealed.slice(0, at);
      const text = sealed.slice(macEnd + 1);
      const given = Buffer.from(sealed.slice(at, macEnd), 'base64url');
      const expected = mac(channel, head, text);
      if (given.length !== expected.length || !timingSafeEqual(given, expected)) return { ok: false, reason: 'forged' };
      const from = sealed.slice(cuts[0]! + 1, cuts[1]);
      const n = Number(sealed.slice(cuts[1]! + 1, cuts[2]));
      const sent = Number(sealed.slice(cuts[2]! + 1, cuts[3]));
      const t = now();
      if (!Number.isSafeInteger(n) || !Number.isFinite(sent) || Math.abs(t - sent) > maxSkewMs) return { ok: false, reason: 'stale' };
      const last = seen.get(from);
      if (last && n <= last.seq) return { ok: false, reason: 'replayed' };
      seen.set(from, { seq: n, at: t });
      sweep(t);
      return { ok: true, node: from.slice(0, from.lastIndexOf('/')), text };
    },
  };
}
export type BusSeal = ReturnType<typeof createBusSeal>;

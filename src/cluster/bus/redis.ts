// The node's two Redis connections (ioredis): one for commands and publishing, one subscribed to
// the cluster's channels. Both reconnect on their own with a capped backoff and the subscriber
// resubscribes; commands fail at once while Redis is away (no offline queue), so a node never piles
// up signals in memory and each caller falls back to what it can do alone. The link is up only
// while both connections are ready; an outage is logged once when it starts and once when it ends.
import { Redis } from 'ioredis';
import type { Logger } from 'pino';

export interface RedisLinkDeps {
  url: string;
  nodeId: string;
  logger: Pick<Logger, 'info' | 'warn' | 'error'>;
  /** Called once per outage, when it begins and when both connections are back. */
  onDown?(reason: string): void;
  onUp?(): void;
  /** The subscriber's messages, by channel. */
  onMessage(channel: string, message: string): void;
}

/** Reconnect delay: 100 ms, growing to 2 s. */
const backoff = (attempt: number) => Math.min(100 * 2 ** Math.min(attempt, 5), 2000);

export function createRedisLink(deps: RedisLinkDeps) {
  const options = {
    connectionName: `agent-hub:${deps.nodeId}`,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    retryStrategy: backoff,
    lazyConnect: true,
    // A silent peer is noticed by TCP keepalive; commands that hang fail after this.
    keepAlive: 5000,
    commandTimeout: 2000,
  };
  const commands = new Redis(deps.url, options);
  const subscriber = new Redis(deps.url, { ...options, commandTimeout: undefined, autoResubscribe: true });
  let up = false;
  let downReason: string | undefined = 'not connected yet';
  let outages = 0;
  let everUp = false;

  const evaluate = (reason?: string) => {
    const both = commands.status === 'ready' && subscriber.status === 'ready';
    if (both && !up) {
      up = true;
      downReason = undefined;
      if (everUp) deps.logger.info('redis is reachable again: cluster signals resume');
      everUp = true;
      deps.onUp?.();
    } else if (!both && up) {
      up = false;
      downReason = reason ?? 'connection lost';
      outages++;
      deps.logger.warn({ reason: downReason }, 'redis is unreachable: this node keeps serving its own sockets and catches up from the store');
      deps.onDown?.(downReason);
    } else if (!both && reason) downReason = reason;
  };
  for (const connection of [commands, subscriber]) {
    connection.on('ready', () => evaluate());
    connection.on('close', () => evaluate('connection closed'));
    connection.on('end', () => evaluate('connection ended'));
    // ioredis reports every failed reconnect here; the outage itself is logged once by `evaluate`.
    connection.on('error', (err: Error) => evaluate(describe(err)));
  }
  subscriber.on('message', (channel: string, message: string) => deps.onMessage(channel, message));

  return {
    commands,
    get up(): boolean {
      return up;
    },
    /** Why the link is down (undefined while it is up). */
    get reason(): string | undefined {
      return downReason;
    },
    get outages(): number {
      return outages;
    },

    /** Connects both and subscribes; rejects when Redis cannot be reached at start. */
    async connect(channels: string[]): Promise<void> {
      await Promise.all([commands.connect(), subscriber.connect()]);
      await subscriber.subscribe(...channels);
      evaluate();
    },

    /** Publishes; false when Redis is away (the store covers what could not be said). */
    async publish(channel: string, message: string): Promise<boolean> {
      if (commands.status !== 'ready') return false;
      try {
        await commands.publish(channel, message);
        return true;
      } catch {
        return false;
      }
    },

    async close(): Promise<void> {
      up = false;
      await Promise.allSettled([commands.quit(), subscriber.quit()]);
      commands.disconnect();
      subscriber.disconnect();
    },
  };
}
export type RedisLink = ReturnType<typeof createRedisLink>;

/** A connection error in a few words (ECONNREFUSED 127.0.0.1:6379), never with credentials. */
export function describe(err: unknown): string {
  const e = err as NodeJS.ErrnoException & { address?: string; port?: number };
  if (e?.code && e.address) return `${e.code} ${e.address}${e.port ? `:${e.port}` : ''}`;
  if (e?.code) return e.code;
  return e instanceof Error ? e.message.replace(/\/\/[^@/]*@/g, '//***@') : String(err);
}

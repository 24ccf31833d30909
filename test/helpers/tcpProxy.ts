// A TCP proxy on loopback in front of a real server (PostgreSQL, Redis): `cut()` closes its port and
// drops every connection through it, as if the server went away; `blackhole()` keeps every
// connection and accepts new ones but carries no byte either way, as a network that drops packets
// (TCP holds the bytes, so nothing is lost or reordered when it heals); `restore()` undoes either.
// With `delayMs`, what clients send reaches the server that much later (a slow link), in order;
// answers come back at once.
import net from 'node:net';
import { reservePorts } from './ports.js';

export interface TcpProxy {
  readonly port: number;
  /** `url` (a server's connection URL) with its host and port changed to reach the server through this proxy. */
  via(url: string): string;
  cut(): Promise<void>;
  blackhole(): void;
  restore(): Promise<void>;
  close(): Promise<void>;
}

export async function startTcpProxy(target: { host: string; port: number }, options: { delayMs?: number } = {}): Promise<TcpProxy> {
  const sockets = new Set<net.Socket>();
  let holding = false;
  /** Copies `from` to `to` with back-pressure; while the proxy holds, `from` is paused (its bytes wait in the kernel). */
  const carry = (from: net.Socket, to: net.Socket, delayMs = 0) => {
    from.on('data', (chunk) => {
      const write = () => {
        if (!to.write(chunk)) {
          from.pause();
          to.once('drain', () => holding || from.resume());
        }
      };
      // Timers of one delay fire in the order they were set: the bytes keep theirs.
      if (delayMs) setTimeout(write, delayMs);
      else write();
    });
    if (holding) from.pause();
  };
  const server = net.createServer((client) => {
    const upstream = net.connect(target.port, target.host);
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
      s.on('error', () => s.destroy());
    }
    carry(client, upstream, options.delayMs);
    carry(upstream, client);
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  });
  const listen = (port: number) =>
    new Promise<number>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => {
        server.off('error', reject);
        resolve((server.address() as net.AddressInfo).port);
      });
    });
  // Not an ephemeral port: `restore()` binds it again, and an outgoing connection could take it meanwhile.
  const port = await listen(await reservePorts());
  const cut = () =>
    new Promise<void>((resolve) => {
      server.close(() => resolve());
      for (const s of sockets) s.destroy();
    });
  return {
    port,
    via(url) {
      const proxied = new URL(url);
      proxied.hostname = '127.0.0.1';
      proxied.port = String(port);
      return proxied.toString();
    },
    cut,
    blackhole() {
      holding = true;
      for (const s of sockets) s.pause();
    },
    restore: async () => {
      if (holding) {
        holding = false;
        for (const s of sockets) s.resume();
      }
      if (!server.listening) await listen(port);
    },
    close: async () => {
      holding = false;
      if (server.listening) await cut();
    },
  };
}

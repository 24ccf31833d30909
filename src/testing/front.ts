// A node's address as the kit's clients see it: a TCP relay on loopback that passes each new
// connection to its node while that node runs, and to the next running node once it is stopped, as a
// load balancer in front of a cluster does. A client of a stopped node therefore reconnects (its own
// backoff) to a live one, resumes, and carries on, with nothing in the kit moving it by hand; a client
// of a restarted single hub reconnects to it on its new port the same way.
import { createServer, connect, type AddressInfo, type Socket } from 'node:net';

export interface Front {
  readonly port: number;
  readonly url: string;
  close(): Promise<void>;
}

/** `target()` names the port a new connection goes to, or undefined to refuse it (no node is running). */
export async function startFront(target: () => number | undefined): Promise<Front> {
  const open = new Set<Socket>();
  const server = createServer((client) => {
    const port = target();
    if (port === undefined) return client.destroy();
    const upstream = connect(port, '127.0.0.1');
    for (const socket of [client, upstream]) {
      open.add(socket);
      socket.on('close', () => {
        open.delete(socket);
        // One end gone ends the other: the client sees its node's socket drop as the node's own would.
        client.destroy();
        upstream.destroy();
      });
      socket.on('error', () => socket.destroy());
    }
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    url: `http://127.0.0.1:${port}`,
    async close() {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const socket of open) socket.destroy();
      await closed;
    },
  };
}

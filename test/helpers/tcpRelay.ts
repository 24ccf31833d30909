// A TCP relay on loopback with a port that outlives the server behind it: clients keep one address
// while a test restarts the hub (which comes back on a new port). With no target it refuses by
// closing each connection at once, as a stopped hub's port would.
import { createServer, connect, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';

export async function startTcpRelay(target: number | undefined) {
  let port = target;
  const open = new Set<Socket>();
  const server = createServer((client) => {
    if (port === undefined) return client.destroy();
    const upstream = connect(port, '127.0.0.1');
    for (const s of [client, upstream]) {
      open.add(s);
      s.on('close', () => open.delete(s));
      s.on('error', () => {
        client.destroy();
        upstream.destroy();
      });
    }
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    /** Where new connections go from now on; undefined refuses them. */
    retarget(next: number | undefined): void {
      port = next;
    },
    /** Cuts every open connection (both ends see the line drop), keeping the port. */
    drop(): void {
      for (const s of open) s.destroy();
    },
    async close(): Promise<void> {
      for (const s of open) s.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

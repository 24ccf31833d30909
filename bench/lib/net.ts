// Ports and readiness checks for the servers the bench starts.
import net from 'node:net';

/** A TCP port that was free a moment ago on 127.0.0.1. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Polls `url` until it answers 200, or throws after `timeoutMs`. */
export async function waitForHttp(url: string, timeoutMs: number, isAlive: () => boolean = () => true): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (!isAlive()) throw new Error(`the server exited before ${url} answered`);
    try {
      const res = await fetch(url, { signal: AbortSignal.timeout(1000) });
      if (res.ok) return;
    } catch {
      // Not listening yet.
    }
    if (Date.now() > deadline) throw new Error(`${url} did not answer within ${timeoutMs} ms`);
    await sleep(100);
  }
}

/**
 * Samples HTTP round trips to `url` every `everyMs`: the server answers on the same event loop as
 * its sockets, so the round trip is a proxy for its event-loop lag under load.
 */
export function pingSampler(url: string, everyMs = 250): { stop(): number[] } {
  const samples: number[] = [];
  let running = true;
  const loop = async () => {
    while (running) {
      const t0 = performance.now();
      try {
        await fetch(url, { signal: AbortSignal.timeout(5000) }).then((r) => r.arrayBuffer());
        samples.push(performance.now() - t0);
      } catch {
        samples.push(5000);
      }
      await sleep(everyMs);
    }
  };
  void loop();
  return {
    stop() {
      running = false;
      return samples;
    },
  };
}

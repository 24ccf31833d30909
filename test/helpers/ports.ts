// Loopback ports for tests: ones nothing listens on, and ones a test binds more than once.
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';

/**
 * A loopback port nothing listens on, for "unreachable" answers (ECONNREFUSED). Not from the
 * ephemeral range: there a connection to it could be given the same port as its own local one and
 * connect to itself.
 */
export async function closedPort(): Promise<number> {
  return reservePorts();
}

// A port that a test binds, releases and binds again (a hub node restarted on its port, a proxy
// restored) must stay free in between. Ports from listen(0) come from the kernel's ephemeral range,
// which outgoing connections (to PostgreSQL, Redis, the hub) draw their local ports from too, so
// one of those can take a released port before it is bound again: "port in use" at a restart.
// These come from just below that range instead, in a block of their own per test worker, so
// neither outgoing connections nor tests running beside this one hand out the same port.
const BLOCK = 400;
const ephemeralLow = (() => {
  try {
    const low = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
    return Number.isInteger(low) && low > 1024 + 64 * BLOCK ? low : 32768;
  } catch {
    return 32768;
  }
})();
const worker = Number(process.env['VITEST_POOL_ID'] ?? 0) % 64;
const blockStart = ephemeralLow - (worker + 1) * BLOCK;
let nextInBlock = 0;

async function canListen(port: number): Promise<boolean> {
  const server = createServer();
  const ok = await new Promise<boolean>((resolve) => {
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => resolve(true));
  });
  if (ok) await new Promise<void>((resolve) => server.close(() => resolve()));
  return ok;
}

/** `count` consecutive loopback ports, free now and kept out of the ephemeral range (see above); returns the first. */
export async function reservePorts(count = 1): Promise<number> {
  for (let tries = 0; tries < BLOCK; tries++) {
    if (nextInBlock + count > BLOCK) nextInBlock = 0;
    const first = blockStart + nextInBlock;
    nextInBlock += count;
    let free = true;
    for (let i = 0; i < count && free; i++) free = await canListen(first + i);
    if (free) return first;
  }
  throw new Error(`no ${count} free consecutive ports in ${blockStart}–${blockStart + BLOCK - 1}`);
}

// A lease keeper in its own process, for the takeover test: prints "acquired <epoch>" once it holds
// the lease, and is then killed with SIGKILL (no clean release).
import pino from 'pino';
import { createSystemClock } from '../../src/clock.js';
import { createLease } from '../../src/cluster/lease/lease.js';

const [databaseUrl, name, nodeId] = process.argv.slice(2) as [string, string, string];
const lease = createLease({
  name,
  nodeId,
  databaseUrl,
  logger: pino({ level: 'silent' }),
  clock: createSystemClock(),
  onAcquired: (epoch) => void process.stdout.write(`acquired ${epoch}\n`),
  onLost: (reason) => void process.stdout.write(`lost ${reason}\n`),
});
lease.start();

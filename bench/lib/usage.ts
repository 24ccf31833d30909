// What a server and the load generators used while a run was measured: CPU per process (and per
// server thread), the whole machine's and other users' CPU, the server's event-loop lag from its
// probe, an HTTP round trip seen from outside, the disk's fsync latency, and the server's resident
// memory at the end.
import os from 'node:os';
import { fsyncSampler } from './disk.js';
import { pingSampler } from './net.js';
import { CpuMeter, ForeignCpuMeter, MachineCpuMeter, rssKb, ThreadCpuMeter, type ThreadCpu } from './procfs.js';
import type { LoopLag, Server } from './servers.js';
import type { Generator } from './spawn.js';
import { percentiles, type Percentiles } from './stats.js';

export interface Usage {
  /** All threads of the server process, % of one core. */
  serverCpuPercent: number;
  serverThreads: ThreadCpu;
  /** Each generator process, % of one core. */
  generatorCpuPercent: Record<string, number>;
  /** The whole machine, kernel included (200 = both cores of a 2-core machine busy). */
  machineCpuPercent: number;
  /** Other users' processes (not the bench's children): above a few % the figures are noisy. */
  foreignCpuPercent: number;
  /** Measured inside the server process. */
  loop: LoopLag;
  /** HTTP round trip to the server every 250 ms: what a client sees of its event loop. */
  pingMs: Percentiles;
  /** A 4 KB write and fdatasync every 100 ms on the store's filesystem: what each commit waits for. */
  fsyncMs: Percentiles;
  serverRssMb: number;
}

export interface UsageMeter {
  stop(): Promise<Usage>;
}

export async function meterUsage(server: Server, generators: Generator[]): Promise<UsageMeter> {
  await server.loop(); // resets the probe: the reading covers this run only
  const cpu = new CpuMeter(server.pid);
  const threads = new ThreadCpuMeter(server.pid);
  const gens = generators.map((g) => ({ name: g.name, meter: new CpuMeter(g.pid) }));
  const machine = new MachineCpuMeter();
  const foreign = new ForeignCpuMeter();
  const pings = pingSampler(server.pingUrl);
  // The run's folder, and so the hub's SQLite file, is under the temporary directory.
  const fsyncs = fsyncSampler(os.tmpdir());
  return {
    async stop() {
      const usage = {
        serverCpuPercent: cpu.percent(),
        serverThreads: threads.read(),
        generatorCpuPercent: Object.fromEntries(gens.map((g) => [g.name, g.meter.percent()])),
        machineCpuPercent: machine.percent(),
        foreignCpuPercent: foreign.percent(),
        pingMs: percentiles(pings.stop()),
        serverRssMb: rssKb(server.pid) / 1024,
      };
      return { ...usage, fsyncMs: percentiles(await fsyncs.stop()), loop: await server.loop() };
    },
  };
}

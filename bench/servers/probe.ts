// Preloaded into every server the bench starts (`node --import <this file>`): measures the process's
// event-loop delay and utilisation from inside, and hands them to the bench over the IPC channel on
// request. The server's own code is untouched; the channel is unref'd so it never keeps a server alive.
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { serve } from '../lib/rpc.js';

/**
 * The histogram samples the interval between ticks of a 10 ms timer; the lag is how much longer
 * than 10 ms that was (a loop busy for 100 ms shows as one sample of about 110 ms).
 */
const RESOLUTION_MS = 10;

const histogram = monitorEventLoopDelay({ resolution: RESOLUTION_MS });
histogram.enable();
let elu = performance.eventLoopUtilization();

const lagMs = (ns: number) => Math.max(0, ns / 1e6 - RESOLUTION_MS);

serve({
  /** Event-loop delay and utilisation since the previous call (or start), then starts afresh. */
  loop: () => {
    const now = performance.eventLoopUtilization();
    const utilisation = performance.eventLoopUtilization(now, elu).utilization;
    elu = now;
    const result = {
      p50: lagMs(histogram.percentile(50)),
      p99: lagMs(histogram.percentile(99)),
      max: lagMs(histogram.max),
      mean: lagMs(histogram.mean),
      utilisation,
    };
    histogram.reset();
    return result;
  },
  /** The V8 heap and memory outside it (uWS's and Buffers' native allocations count as external). */
  memory: () => {
    const m = process.memoryUsage();
    return { rss: m.rss, heapUsed: m.heapUsed, heapTotal: m.heapTotal, external: m.external, arrayBuffers: m.arrayBuffers };
  },
});
process.channel?.unref();

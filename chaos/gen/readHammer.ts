// Generator child for the read-stall check: one member calling the hub's expensive reads in a loop
// from `callers` parallel connections, as a script or many dashboard tabs would, without honouring
// Retry-After. Counts the answers by route and status, and times them.
import { serve } from '../../bench/lib/rpc.js';
import { now } from '../../bench/gen/common.js';
import { percentiles, type Percentiles } from '../../bench/lib/stats.js';

export interface HammerResult {
  requests: number;
  /** "route status" → answers. */
  statuses: Record<string, number>;
  /** Requests that got no HTTP answer (connection refused, reset). */
  failures: number;
  failureSamples: string[];
  /** Latency of the 200 answers. */
  served: Percentiles;
}

let running: { stop: boolean; loops: Promise<void>[]; statuses: Record<string, number>; served: number[]; failures: number; samples: string[] } | undefined;

async function loop(baseUrl: string, token: string, paths: readonly string[], offset: number): Promise<void> {
  const r = running!;
  for (let i = offset; !r.stop; i++) {
    const path = paths[i % paths.length]!;
    const route = path.split('?')[0]!;
    const started = now();
    try {
      const res = await fetch(`${baseUrl}${path}`, { headers: { authorization: `Bearer ${token}` } });
      await res.arrayBuffer();
      const key = `${route} ${res.status}`;
      r.statuses[key] = (r.statuses[key] ?? 0) + 1;
      if (res.status === 200) r.served.push(now() - started);
    } catch (err) {
      r.failures++;
      if (r.samples.length < 5) r.samples.push(`${path}: ${(err as Error).message}`);
    }
  }
}

serve({
  hello: () => ({ pid: process.pid }),
  start(p: { baseUrl: string; token: string; paths: string[]; callers: number }) {
    running = { stop: false, loops: [], statuses: {}, served: [], failures: 0, samples: [] };
    for (let c = 0; c < p.callers; c++) running.loops.push(loop(p.baseUrl, p.token, p.paths, c));
    return { callers: p.callers };
  },
  async stop(): Promise<HammerResult> {
    const r = running;
    if (!r) return { requests: 0, statuses: {}, failures: 0, failureSamples: [], served: percentiles([]) };
    r.stop = true;
    await Promise.all(r.loops);
    running = undefined;
    const requests = Object.values(r.statuses).reduce((a, b) => a + b, 0) + r.failures;
    return { requests, statuses: r.statuses, failures: r.failures, failureSamples: r.samples, served: percentiles(r.served) };
  },
});

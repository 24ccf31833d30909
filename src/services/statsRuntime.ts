// The hub's vital signs over the last hour, sampled in memory for the Actors page's charts: open
// sockets, the group-commit queue's depth and the longest event-loop delay between samples.
import { monitorEventLoopDelay } from 'node:perf_hooks';
import type { Clock } from '../clock.js';
import type { RuntimeSamples } from '../protocol/stats.js';

export interface RuntimeProbes {
  sockets(): number;
  queueDepth(): number;
}

export interface RuntimeSamplerOptions {
  probes: RuntimeProbes;
  clock: Clock;
  intervalMs?: number;
  /** Samples kept (the oldest go first). */
  keep?: number;
}

export function createRuntimeSampler(options: RuntimeSamplerOptions) {
  const { probes, clock } = options;
  const intervalMs = options.intervalMs ?? 5000;
  const keep = options.keep ?? 720;
  const samples: RuntimeSamples['samples'] = [];
  const delay = monitorEventLoopDelay({ resolution: 10 });
  let timer: NodeJS.Timeout | undefined;

  /** The figures now; the histogram is in nanoseconds, its max the worst delay since the last reset. */
  function current(): RuntimeSamples['samples'][number] {
    const lag = delay.count > 0 ? delay.max / 1e6 : 0;
    return { t: clock(), sockets: probes.sockets(), queue_depth: probes.queueDepth(), loop_lag_ms: Math.round(lag * 10) / 10 };
  }

  function sample(): void {
    samples.push(current());
    delay.reset();
    if (samples.length > keep) samples.splice(0, samples.length - keep);
  }

  return {
    start(): void {
      if (timer) return;
      delay.enable();
      sample();
      timer = setInterval(sample, intervalMs);
      timer.unref();
    },
    stop(): void {
      if (timer) clearInterval(timer);
      timer = undefined;
      delay.disable();
    },
    /** Takes one sample now (tests, and the first read after a quiet start). */
    sample,
    /** The kept samples and, last, the figures at this moment (so a chart always ends at now). */
    read(): RuntimeSamples {
      return { interval_ms: intervalMs, samples: [...samples, current()] };
    },
  };
}
export type RuntimeSampler = ReturnType<typeof createRuntimeSampler>;

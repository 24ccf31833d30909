// What a run does: the quick and full profiles, and the command-line switches.
import { parseArgs } from 'node:util';

export type Phase = 'hub' | 'hub-no-metrics' | 'raw' | 'idle';
const PHASES: readonly Phase[] = ['hub', 'hub-no-metrics', 'raw', 'idle'];

/** Machine CPU (100 = one core) other processes may use before the run starts without it counting as busy. */
export const QUIET_CPU = 10;

export interface Plan {
  mode: 'quick' | 'full';
  phases: Set<Phase>;
  /** Run the hub under --cpu-prof during the chat phases and summarise the profile. */
  profile: boolean;
  humans: number;
  agents: number;
  /**
   * Closed loop: unacknowledged frames each agent may have in flight, one run per value. A small
   * window shows throughput at bounded latency; a large one keeps the server's queue full, which is
   * what a maximum needs when each group commit's round trip, not CPU, limits the rate.
   */
  windows: number[];
  /** Chat text length. */
  payloadBytes: number;
  /** Unreported closed-loop run first: JIT warm-up, default threads created, SQLite pages cached. */
  warmupMs: number;
  closedMs: number;
  /** Start of a closed-loop run left out of msg/s. */
  rampMs: number;
  openMs: number;
  openRates: number[];
  rawOpenRate: number;
  /** Upper bound for stragglers after the last send (an overloaded server catches up within it, or loses). */
  drainMs: number;
  idle: { sockets: number; generators: number; concurrency: number; settleMs: number };
  /** How long to wait for other processes to quieten down before starting anyway. */
  quietWaitMs: number;
}

const USAGE = `usage: npm run bench:ws -- [--quick] [--profile] [--only hub,raw,idle] [--windows N,M] [--idle-sockets N]
  --quick          a run under ~2 minutes (shorter phases, fewer idle sockets)
  --profile        run the hub with --cpu-prof and print its top self-time functions (slows the hub a little)
  --only LIST      phases to run: hub (agent→human chat), hub-no-metrics (the same with METRICS_ENABLED=false),
                   raw (the uWS relay reference), idle (idle sockets)
  --windows LIST   closed-loop frames in flight per agent, one run each (default 16,256)
  --idle-sockets N idle sockets to open (default 10000)`;

export function parsePlan(argv: string[]): Plan {
  const { values } = parseArgs({
    args: argv,
    options: {
      quick: { type: 'boolean', default: false },
      profile: { type: 'boolean', default: false },
      only: { type: 'string' },
      windows: { type: 'string' },
      'idle-sockets': { type: 'string' },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    process.exit(0);
  }
  const quick = values.quick!;
  const phases = new Set((values.only ?? 'hub,raw,idle').split(',').map((p) => p.trim()) as Phase[]);
  for (const p of phases) if (!PHASES.includes(p)) throw new Error(`unknown phase ${p}\n${USAGE}`);
  const positive = (text: string | undefined, fallback: number) => {
    if (text === undefined) return fallback;
    const n = Number(text);
    if (!Number.isInteger(n) || n < 1) throw new Error(`expected a positive whole number, got ${text}\n${USAGE}`);
    return n;
  };
  return {
    mode: quick ? 'quick' : 'full',
    phases,
    profile: values.profile!,
    humans: 20,
    agents: 100,
    windows: (values.windows ?? '16,256').split(',').map((w) => positive(w.trim(), 16)),
    payloadBytes: 100,
    warmupMs: quick ? 3_000 : 5_000,
    closedMs: quick ? 6_000 : 25_000,
    rampMs: quick ? 2_000 : 3_000,
    openMs: quick ? 5_000 : 20_000,
    openRates: [1_000, 5_000, 10_000],
    rawOpenRate: 5_000,
    drainMs: 60_000,
    quietWaitMs: quick ? 10_000 : 60_000,
    idle: { sockets: positive(values['idle-sockets'], 10_000), generators: 3, concurrency: 64, settleMs: quick ? 2_000 : 5_000 },
  };
}

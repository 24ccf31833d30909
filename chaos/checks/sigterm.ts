// SIGTERM under load: the hub drains and exits 0, and nothing it acknowledged is lost.
import { pick } from '../../bench/lib/plan.js';
import { defineCheck } from '../lib/check.js';
import { crashRounds, type CrashSettings } from '../phases/crash.js';

export default defineCheck({
  key: 'sigterm',
  title: 'SIGTERM under load: exit 0, nothing lost',
  order: 20,
  settings: (plan): CrashSettings => ({
    signal: 'SIGTERM',
    rounds: 1,
    agents: pick(plan, 20, 100),
    humans: pick(plan, 4, 10),
    window: 16,
    roundMs: pick(plan, 1_500, 15_000),
    payloadBytes: 100,
    resendPerAgent: 5,
    exitTimeoutMs: 30_000,
    backTimeoutMs: 60_000,
  }),
  async run(ctx, s) {
    const { verdicts, notes } = await crashRounds(ctx, 'sigterm', s);
    return {
      measured: `${s.agents} agents send targeted CHAT (window ${s.window}) to ${s.humans} humans; after ${s.roundMs / 1000} s the hub gets SIGTERM, is restarted on the same store and port, and the clients carry on. Exit code and time from the hub process; the ACK ledger against the messages table.`,
      verdicts,
      notes,
    };
  },
});

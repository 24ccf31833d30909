// kill -9 under load, three times: every acknowledged frame must survive, stored exactly once
// under the id its ACK gave; resends are deduplicated with their first ids; humans that resume with
// `since` see no gap.
import { pick } from '../../bench/lib/plan.js';
import { defineCheck } from '../lib/check.js';
import { crashRounds, type CrashSettings } from '../phases/crash.js';

export default defineCheck({
  key: 'crash',
  title: 'kill -9 under load, restart, nothing acknowledged lost or doubled',
  order: 10,
  settings: (plan): CrashSettings => ({
    signal: 'SIGKILL',
    rounds: 3,
    agents: pick(plan, 20, 100),
    humans: pick(plan, 4, 10),
    window: 16,
    roundMs: pick(plan, 1_500, 20_000),
    payloadBytes: 100,
    resendPerAgent: pick(plan, 5, 20),
    exitTimeoutMs: 10_000,
    backTimeoutMs: 60_000,
  }),
  async run(ctx, s) {
    const { verdicts, notes } = await crashRounds(ctx, 'crash', s);
    return {
      measured: `${s.agents} agents send targeted CHAT (window ${s.window}) to ${s.humans} humans; every ${s.roundMs / 1000} s the hub is killed with SIGKILL and restarted on the same store and port (${s.rounds} rounds). Agents resend every unacknowledged frame with its local_id; humans resume with since. Then the ACK ledger is compared with the messages table.`,
      verdicts,
      notes,
    };
  },
});

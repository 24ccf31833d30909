// The targeted-chat load shared by the hub's scenario and the two references: agents send CHAT to
// humans, round-robin, with the same counts, rates and windows for every server of a run.
import { pick, type Plan } from '../lib/plan.js';
import type { LoadSettings } from './load.js';

export interface TargetedSettings extends LoadSettings {
  agents: number;
  humans: number;
}

export function targetedSettings(plan: Plan, openRates: number[]): TargetedSettings {
  return {
    agents: 100,
    humans: 20,
    payloadBytes: 100,
    warmupMs: pick(plan, 1_000, 5_000),
    openRates,
    openMs: pick(plan, 1_500, 15_000),
    windows: plan.windows ?? pick(plan, [256], [16, 256]),
    closedMs: pick(plan, 2_000, 20_000),
    rampMs: pick(plan, 500, 3_000),
    drainMs: 60_000,
  };
}

// The shape of a check: one file in chaos/checks/ whose default export is `defineCheck({...})`. The
// orchestrator finds it there, gives it a fresh context (hub, stores, generators, all stopped when it
// ends) and prints its table; a check passes when every one of its verdicts holds.
import type { Plan } from '../../bench/lib/plan.js';
import type { ScenarioContext } from '../../bench/lib/scenario.js';
import type { Hub } from '../../bench/lib/servers.js';
import type { ScratchStore } from '../../bench/lib/stores.js';
import type { SecretBook } from './secrets.js';
import type { Verdict } from './verdict.js';

export interface CheckReport {
  /** One sentence: what was done and measured (the table's caption). */
  measured: string;
  verdicts: Verdict[];
  /** Extra markdown (breakdowns) printed under the table. */
  notes?: string[];
}

export interface ChaosContext extends ScenarioContext {
  /** The hubs' JWT_SECRET (the secrets scan looks for it; forged tokens are signed with others). */
  jwtSecret: string;
  /** Credentials handed out during the run: none may show up in a log or a foreign answer. */
  secrets: SecretBook;
  /** Folder where generators keep what the hub answered them, for the secrets scan. */
  answersDir: string;
  /** Starts the hub `name` on `store` with the run's settings (and `env`), on `port` when given. */
  hub(name: string, store: ScratchStore, env?: Record<string, string>, port?: number): Promise<Hub>;
  /** The hub log of `name` (appended across restarts). */
  hubLog(name: string): string;
}

export interface Check<S extends object = object> {
  key: string;
  title: string;
  order: number;
  settings(plan: Plan): S;
  run(ctx: ChaosContext, settings: S): Promise<CheckReport>;
}

export const defineCheck = <S extends object>(check: Check<S>): Check<S> => check;

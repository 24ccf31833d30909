// The shape every scenario module has, and what the orchestrator hands it. A scenario is one file in
// bench/scenarios/ whose default export is `defineScenario({...})`: the orchestrator finds it there,
// runs it in `order`, prints its settings, keeps its summary under `scenarios.<key>` in latest.json
// and fails the run on any problem it reports.
import type { Plan } from './plan.js';
import type { ProfileSummary, ProfileWindow } from './profile.js';
import type { Hub, Server } from './servers.js';
import type { Generator } from './spawn.js';
import type { ScratchStore } from './stores.js';

/** A figure kept in latest.json; null when it could not be measured in this run. */
export type Figure = number | null;

export interface ScenarioReport {
  /** The figures compared across runs (`scenarios.<key>` in latest.json): stable names, plain numbers. */
  summary: Record<string, Figure>;
  /** Everything measured (`details.<key>`). */
  details: unknown;
  /** Its section of the markdown report. */
  markdown: string[];
  /** Lost, duplicated or refused messages, errors, closed sockets: any one fails the whole run. */
  problems: string[];
}

export interface ScenarioContext {
  plan: Plan;
  /** Progress on stderr, prefixed with the elapsed time. */
  log(line: string): void;
  /** The run's temporary folder (hub logs, SQLite files); kept when the run fails. */
  workDir: string;
  /** A new empty store of the run's kind (SQLite file or scratch PostgreSQL database). */
  newStore(name: string): Promise<ScratchStore>;
  /**
   * Starts a hub on `store` (with --profile under --cpu-prof), with `env` added to its environment
   * (a fake model's URL, say; the command line's --hub-env still wins). It is stopped when the
   * scenario ends if the scenario has not stopped it with `stopHub`. `port`: listen there (a restart
   * on the port its clients reconnect to).
   */
  startHub(name: string, store: ScratchStore, env?: Record<string, string>, port?: number): Promise<Hub>;
  /** Stops a hub; with --profile, summarises its profile over `window` (what the scenario measured). */
  stopHub(hub: Hub, window?: Omit<ProfileWindow, 'exitedAt'>, covers?: string): Promise<void>;
  /** Starts a reference server or anything else with a `stop`, stopped when the scenario ends. */
  track<T extends Server>(server: Promise<T>): Promise<T>;
  /**
   * Runs `fn` when the scenario ends (or fails, or the run is interrupted), after every hub and
   * generator it started is stopped: for what they use, such as a scratch database or a private Redis.
   */
  afterStop(fn: () => Promise<void>): void;
  /** Starts a load generator process (a script in bench/gen/), stopped when the scenario ends. */
  generator(name: string, script: string): Promise<Generator>;
}

export interface Scenario<S extends object = object> {
  /** Name for --only and the key of its figures in latest.json. */
  key: string;
  title: string;
  /** Position in the run (ascending). */
  order: number;
  /** Its load for this plan: printed before it runs and kept in latest.json. */
  settings(plan: Plan): S;
  run(ctx: ScenarioContext, settings: S): Promise<ScenarioReport>;
}

/** Identity with the types checked: `export default defineScenario({...})`. */
export const defineScenario = <S extends object>(scenario: Scenario<S>): Scenario<S> => scenario;

export type { ProfileSummary };

// What a scenario is handed: hub and generator starters that remember what they started, so the
// orchestrator stops it all when the scenario ends (or fails, or the run is interrupted), and the
// hub's profiles when the run profiles.
import { join } from 'node:path';
import { now } from './clock.js';
import type { Plan } from './plan.js';
import { summariseWritten, type ProfileSummary } from './profile.js';
import type { ScenarioContext } from './scenario.js';
import { newJwtSecret, startHub, type Hub, type HubOptions, type Server } from './servers.js';
import { Generator } from './spawn.js';
import type { StoreFactory } from './stores.js';

/** Everything started and not yet stopped, across scenarios (a Ctrl-C stops it all). */
export class Live {
  /** Hubs and reference servers; only their `stop` is needed here. */
  readonly servers = new Set<Pick<Server, 'stop'>>();
  readonly generators = new Set<Generator>();
  private readonly cleanups: (() => Promise<void>)[] = [];
  private stopping: Promise<void> = Promise.resolve();

  /** `fn` runs in `stopAll` once every process is stopped (last registered first): what they use, such as a scratch database. */
  afterStop(fn: () => Promise<void>): void {
    this.cleanups.push(fn);
  }

  /**
   * Stops the generators, then the servers, then runs the clean-ups: a database is never dropped
   * under a hub still running. Every clean-up runs; those that failed are thrown together at the end.
   */
  stopAll(): Promise<void> {
    // A second call (a Ctrl-C or an unhandled error while a scenario's clean-up runs) waits for the
    // first, then stops what is left: whoever asked returns only once everything is stopped.
    const run = this.stopping.catch(() => undefined).then(() => this.stopNow());
    this.stopping = run;
    return run;
  }

  private async stopNow(): Promise<void> {
    const generators = [...this.generators];
    const servers = [...this.servers];
    const cleanups = this.cleanups.splice(0).reverse();
    this.generators.clear();
    this.servers.clear();
    await Promise.all(generators.map((g) => g.stop()));
    await Promise.all(servers.map((s) => s.stop()));
    const failed: unknown[] = [];
    for (const fn of cleanups) await fn().catch((err: unknown) => failed.push(err));
    if (failed.length > 0) throw new AggregateError(failed, `clean-up failed: ${failed.map((e) => (e instanceof Error ? e.message : String(e))).join('; ')}`);
  }
}

export interface ContextOptions {
  plan: Plan;
  log(line: string): void;
  workDir: string;
  root: string;
  resultsDir: string;
  stores: StoreFactory;
  live: Live;
  /** How every hub of the run starts (entry point, rate limit), when not the bench's way. */
  hub?: Pick<HubOptions, 'script' | 'rateLimited'>;
}

export function createContext(key: string, o: ContextOptions, jwtSecret = newJwtSecret()): { ctx: ScenarioContext; profiles: ProfileSummary[] } {
  const profiles: ProfileSummary[] = [];
  const hubs = new Map<Hub, { name: string; profileDir?: string }>();
  // One JWT secret per scenario (`jwtSecret`): a hub restarted on the same store keeps accepting its sessions.
  const ctx: ScenarioContext = {
    plan: o.plan,
    log: o.log,
    workDir: o.workDir,
    newStore: (name) => o.stores.create(name),
    async startHub(name, store, env = {}, port) {
      const profileDir = o.plan.profile ? join(o.workDir, 'profiles', name) : undefined;
      o.log(`${key}: starting a hub on ${store.describe}${profileDir ? ' under --cpu-prof' : ''}`);
      const hub = await startHub({ ...o.hub, store, logDir: join(o.workDir, name), jwtSecret, profileDir, port, hubEnv: { ...env, ...o.plan.hubEnv } });
      o.live.servers.add(hub);
      hubs.set(hub, { name, profileDir });
      return hub;
    },
    async stopHub(hub, window, covers = 'the measured runs') {
      // SIGTERM: the hub shuts down cleanly, which is also when --cpu-prof writes its profile.
      await hub.stop();
      o.live.servers.delete(hub);
      const started = hubs.get(hub);
      hubs.delete(hub);
      if (started?.profileDir && window) {
        profiles.push(
          ...summariseWritten(started.profileDir, join(o.resultsDir, `hub-${started.name}-latest`), o.root, covers, { ...window, exitedAt: now() }),
        );
      }
    },
    async track(starting) {
      const server = await starting;
      o.live.servers.add(server);
      return server;
    },
    afterStop: (fn) => o.live.afterStop(fn),
    async generator(name, script) {
      const gen = await Generator.start(name, script);
      o.live.generators.add(gen);
      return gen;
    },
  };
  return { ctx, profiles };
}

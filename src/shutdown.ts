// Shutdown as an ordered list of named steps. The order is fixed up front; each part of the hub adds
// its steps as it is built, so a start that fails midway stops exactly what was built, in the same
// order as a full stop. Every step is timed and logged; a step that fails is logged and the next
// one still runs (a stuck connector must not keep the store open).
import type { Logger } from 'pino';

export interface ShutdownStep {
  readonly name: string;
  run(): unknown;
}

export interface Shutdown<Name extends string = string> {
  /** Adds the step named `name` (one of the order's names, each at most once). */
  add(name: Name, run: () => unknown): void;
  /** True once `run` was called: readiness answers "shutting down" from then on. */
  readonly begun: boolean;
  /**
   * Runs the added steps in the order's order, once (later calls return the same promise). Rejects
   * after the last step when any step failed, naming them.
   */
  run(): Promise<void>;
}

export interface ShutdownOptions<Name extends string> {
  /** Every step's name, in the order the steps run. */
  order: readonly Name[];
  logger: Logger;
}

export function createShutdown<Name extends string>(options: ShutdownOptions<Name>): Shutdown<Name> {
  const { order, logger } = options;
  const added = new Map<Name, ShutdownStep>();
  let running: Promise<void> | undefined;

  async function runSteps(): Promise<void> {
    const failed: string[] = [];
    for (const name of order) {
      const step = added.get(name);
      if (!step) continue;
      const startedAt = performance.now();
      try {
        await step.run();
        logger.info({ step: name, ms: elapsed(startedAt) }, `shutdown: ${name}`);
      } catch (err) {
        failed.push(name);
        logger.error({ err, step: name, ms: elapsed(startedAt) }, `shutdown step failed: ${name}`);
      }
    }
    if (failed.length > 0) throw new Error(`shutdown steps failed: ${failed.join(', ')}`);
  }

  return {
    add(name, run) {
      if (!order.includes(name)) throw new Error(`"${name}" is not a shutdown step`);
      if (added.has(name)) throw new Error(`the shutdown step "${name}" was added twice`);
      if (running) throw new Error(`the shutdown step "${name}" was added after shutdown began`);
      added.set(name, { name, run });
    },
    get begun() {
      return running !== undefined;
    },
    run: () => (running ??= runSteps()),
  };
}

const elapsed = (since: number) => Math.round((performance.now() - since) * 10) / 10;

// How an orchestrator (the bench's, the chaos run's) runs a scenario and ends. A scenario's error is
// printed (with its stack) before anything is stopped, then its processes are stopped, then what they
// used (a scratch database) is dropped. The run ends with main's exit code; on Ctrl-C or SIGTERM, when
// main throws, and on an error nobody handled (a rejected promise, an 'error' event), only after the
// error is printed, every child process stopped and every scratch database dropped. A usage error is
// shown without a stack trace.
import type { Live } from './context.js';
import { UsageError } from './plan.js';

export const describeError = (err: unknown): string => (err instanceof Error ? (err.stack ?? err.message) : String(err));

/** How one scenario ended: its result, or the error it threw; `cleanUpError` when stopping what it started failed. */
export interface StageOutcome<T> {
  value?: T;
  error?: unknown;
  cleanUpError?: unknown;
}

/**
 * Runs one scenario (`key`): prints its error with its stack as soon as it throws, then stops every
 * process it started and only then runs its clean-ups (`Live.stopAll`).
 */
export async function runStage<T>(key: string, run: () => Promise<T>, o: { live: Live; log(line: string): void }): Promise<StageOutcome<T>> {
  const outcome: StageOutcome<T> = {};
  try {
    outcome.value = await run();
  } catch (err) {
    outcome.error = err;
    o.log(`!!! ${key}: ${describeError(err)}`);
  }
  try {
    await o.live.stopAll();
  } catch (err) {
    outcome.cleanUpError = err;
    o.log(`!!! ${key}: stopping what it started: ${describeError(err)}`);
  }
  return outcome;
}

export function runToExit(main: () => Promise<number>, o: { live: Live; log(line: string): void; dispose(): Promise<void> | undefined }): void {
  const cleanUp = () =>
    o.live
      .stopAll()
      .catch((err: unknown) => o.log(`!!! ${describeError(err)}`))
      .then(() => o.dispose());
  let ending = false;
  const end = (code: number) => {
    if (ending) return;
    ending = true;
    void cleanUp().finally(() => process.exit(code));
  };
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      o.log(`${signal}: stopping every child process`);
      end(130);
    });
  }
  // Without these Node would print the error and exit at once, leaving hubs running on a database
  // nobody drops (or, once something else dropped it, hiding what went wrong first).
  for (const event of ['unhandledRejection', 'uncaughtException'] as const) {
    process.on(event, (err: unknown) => {
      o.log(`!!! ${event === 'unhandledRejection' ? 'a promise nobody waited for failed' : 'an error nobody handled'}: ${describeError(err)}`);
      end(1);
    });
  }
  main().then(
    // While an unhandled error's clean-up runs, that clean-up ends the process once done.
    (code) => ending || process.exit(code),
    (err: unknown) => {
      if (err instanceof UsageError) {
        process.stderr.write(`${err.message}\n`);
        process.exit(2);
      }
      o.log(`!!! ${describeError(err)}`);
      end(1);
    },
  );
}

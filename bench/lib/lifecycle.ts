// How an orchestrator (the bench's, the chaos run's) ends: with main's exit code; on Ctrl-C or
// SIGTERM, and when main throws, only after every child process is stopped and every scratch
// database dropped. A usage error is shown without a stack trace.
import type { Live } from './context.js';
import { UsageError } from './plan.js';

export function runToExit(main: () => Promise<number>, o: { live: Live; log(line: string): void; dispose(): Promise<void> | undefined }): void {
  const cleanUp = () => o.live.stopAll().then(() => o.dispose());
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      o.log(`${signal}: stopping every child process`);
      void cleanUp().finally(() => process.exit(130));
    });
  }
  main().then(
    (code) => process.exit(code),
    (err: unknown) => {
      if (err instanceof UsageError) {
        process.stderr.write(`${err.message}\n`);
        process.exit(2);
      }
      o.log(`!!! ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
      void cleanUp().finally(() => process.exit(1));
    },
  );
}

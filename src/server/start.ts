// `agent-hub start` and `npm start`: check the runtime, read the configuration, start the hub, stop it
// cleanly on SIGINT/SIGTERM. Resolves once the hub listens; a failure to start exits 1 with one line.
import { ConfigError, loadConfig } from '../config.js';
import { createLogger, logDestination } from '../logger.js';
import { currentRuntime, installedUwsBinary, runtimeProblem } from '../runtime.js';

export async function runHub(): Promise<void> {
  const problem = runtimeProblem(currentRuntime(), installedUwsBinary);
  if (problem) {
    process.stderr.write(`The hub cannot start: ${problem}\n`);
    process.exit(1);
  }
  // Loaded only once the runtime is known to carry the native modules it needs.
  const { startHub } = await import('../hub.js');
  let config;
  try {
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`The hub cannot start: ${err.message}\nSee .env.example for every setting and its default.\n`);
      process.exit(1);
    }
    throw err;
  }
  const logger = createLogger(config.logLevel, logDestination(config.logFormat));
  for (const warning of config.warnings) logger.warn(warning);

  const started = performance.now();
  const hub = await startHub({ config, logger });
  const shownHost = config.server.host === '0.0.0.0' ? 'localhost' : config.server.host;
  logger.info(
    { env: config.env, driver: config.db.driver, port: hub.port, startupMs: Math.round(performance.now() - started) },
    `hub listening on http://${shownHost}:${hub.port}`,
  );

  let signalled = false;
  const shutdown = (signal: string) => {
    if (signalled) return;
    signalled = true;
    logger.info({ signal }, 'shutting down');
    hub
      .stop()
      .then(() => {
        logger.info('stopped cleanly');
        process.exit(0);
      })
      .catch((err: unknown) => {
        logger.error({ err }, 'shutdown failed');
        process.exit(1);
      });
  };
  process.on('SIGINT', () => shutdown('SIGINT'));
  process.on('SIGTERM', () => shutdown('SIGTERM'));
}

/** The one line (and its cause) printed when the hub fails to start, then exit 1. */
export function failedToStart(err: unknown): never {
  process.stderr.write(`The hub failed to start: ${err instanceof Error ? err.message : String(err)}\n`);
  if (err instanceof Error && err.cause) process.stderr.write(`  cause: ${String((err.cause as Error).message ?? err.cause)}\n`);
  process.exit(1);
}

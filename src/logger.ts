// Structured logging (pino) with credentials redacted wherever they could appear.
import pino, { type DestinationStream, type Logger } from 'pino';
import pretty from 'pino-pretty';

export const REDACT_PATHS = [
  'password',
  '*.password',
  'password_hash',
  '*.password_hash',
  'api_token',
  '*.api_token',
  'token',
  '*.token',
  'app_secret',
  '*.app_secret',
  'authorization',
  'headers.authorization',
  'req.headers.authorization',
  '*.headers.authorization',
];

/** Coloured one-line-per-event output for people at a terminal; JSON lines for machines. */
export function logDestination(format: 'json' | 'pretty' | undefined): DestinationStream | undefined {
  const usePretty = format === 'pretty' || (format === undefined && process.stdout.isTTY === true);
  return usePretty ? pretty({ colorize: true, translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname', singleLine: true, sync: true }) : undefined;
}

export function createLogger(level: string, destination?: DestinationStream): Logger {
  return pino(
    {
      level,
      base: undefined,
      redact: { paths: REDACT_PATHS, censor: '[redacted]' },
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
    },
    destination,
  );
}

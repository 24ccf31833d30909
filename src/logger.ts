// Structured logging (pino) with credentials redacted wherever they could appear.
import pino, { type DestinationStream, type Logger } from 'pino';

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

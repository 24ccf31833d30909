import { CloseCode } from '../../src/protocol/errors.js';
// Close codes as the hub documents them (src/errors.ts CloseCode, plus the transport's own), so a
// table can tell expected closes from unexplained ones (1006: the connection dropped without a close).

const NAMES: Record<number, string> = {
  ...Object.fromEntries(Object.entries(CloseCode).map(([name, code]) => [code, name])),
  1005: 'noStatus',
  1006: 'dropped (no close frame)',
  1007: 'invalidPayload (bad UTF-8)',
};

export const closeName = (code: number | string) => `${code} ${NAMES[Number(code)] ?? 'unknown'}`;

/** "1001 goingAway × 12, 4011 slowConsumer × 3" */
export const describeCloses = (closes: Record<string, number>) =>
  Object.entries(closes)
    .sort(([a], [b]) => Number(a) - Number(b))
    .map(([code, n]) => `${closeName(code)} × ${n}`)
    .join(', ') || 'none';

export const count = (closes: Record<string, number>, code: number) => closes[String(code)] ?? 0;

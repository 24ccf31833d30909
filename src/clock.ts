// Time source, passed in so tests can pin it. Always ISO 8601 UTC with milliseconds.
export type Clock = () => string;

/**
 * The wall clock, formatted once per millisecond: every message gets a timestamp, and formatting a
 * Date was 6 % of the hub's main thread under load.
 */
export function createSystemClock(): Clock {
  let lastMs = -1;
  let lastText = '';
  return () => {
    const now = Date.now();
    if (now !== lastMs) {
      lastMs = now;
      lastText = new Date(now).toISOString();
    }
    return lastText;
  };
}

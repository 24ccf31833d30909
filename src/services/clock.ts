// Time source, passed in so tests can pin it. Always ISO 8601 UTC with milliseconds.
export type Clock = () => string;
export const systemClock: Clock = () => new Date().toISOString();

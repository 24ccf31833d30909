/**
 * Wall-clock milliseconds with sub-millisecond resolution. Every bench process uses the same
 * formula, so a time taken in one process can be compared with a time taken in another.
 */
export const now = () => performance.timeOrigin + performance.now();

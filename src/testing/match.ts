// Matching frames and snapshots the way tests describe them: a partial object (nested objects
// partial too, arrays element by element, RegExps test strings, functions test values) or a predicate.

/** A partial shape of T, or a predicate on it. */
export type Matcher<T> = ((value: T) => boolean) | Pattern<T>;

export type Pattern<T> = T extends string
  ? string | RegExp | ((value: string) => boolean)
  : T extends number | boolean | null | undefined
    ? T | ((value: T) => boolean)
    : T extends ReadonlyArray<infer E>
      ? ReadonlyArray<Pattern<E>> | ((value: T) => boolean)
      : T extends object
        ? { [K in keyof T]?: Pattern<T[K]> } & Record<string, unknown>
        : unknown;

export function matches(actual: unknown, expected: unknown): boolean {
  if (typeof expected === 'function') return Boolean((expected as (v: unknown) => unknown)(actual));
  if (expected instanceof RegExp) return typeof actual === 'string' && expected.test(actual);
  if (Array.isArray(expected)) {
    return Array.isArray(actual) && actual.length === expected.length && expected.every((e, i) => matches(actual[i], e));
  }
  if (expected !== null && typeof expected === 'object') {
    if (actual === null || typeof actual !== 'object') return false;
    return Object.entries(expected).every(([key, e]) => matches((actual as Record<string, unknown>)[key], e));
  }
  return Object.is(actual, expected);
}

/** A matcher in one line, for failure messages. */
export function describeMatcher(matcher: unknown): string {
  if (typeof matcher === 'function') return `the predicate ${matcher.name || truncate(String(matcher), 120)}`;
  return truncate(
    JSON.stringify(matcher, (_key, value: unknown) =>
      value instanceof RegExp ? String(value) : typeof value === 'function' ? `<predicate ${value.name || 'function'}>` : value,
    ),
    300,
  );
}

export function truncate(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

// The guard of a type set: `isChatType` is `memberOf(ChatTypes)`, so a set and the check that a string
// belongs to it are declared once and cannot drift apart.

/** A type guard for the members of `set` (a constant tuple of names). */
export function memberOf<const T extends readonly string[]>(set: T): (value: string) => value is T[number] {
  const members: ReadonlySet<string> = new Set(set);
  return (value): value is T[number] => members.has(value);
}

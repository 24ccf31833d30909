// Results of the pure, costly part of checking a credential (a JWT's HMAC signature, an agent
// token's lookup digest), kept per credential text so a client calling many times pays it once.
// Only what follows from the text alone is kept: who the credential belongs to, and whether that
// user still exists, holds that token or has that role, is read from the store on every request,
// so rotation, deletion and role changes take effect at once.
export interface CredentialCache<V> {
  get(credential: string): V | undefined;
  set(credential: string, value: V): void;
  delete(credential: string): void;
  readonly size: number;
}

/** At most `capacity` entries; the least recently used one goes first. */
export function createCredentialCache<V>(capacity: number): CredentialCache<V> {
  const entries = new Map<string, V>();
  return {
    get(credential) {
      const value = entries.get(credential);
      if (value === undefined) return undefined;
      // Moved to the back: a Map iterates in insertion order, so the front is the least recent.
      entries.delete(credential);
      entries.set(credential, value);
      return value;
    },
    set(credential, value) {
      entries.delete(credential);
      if (entries.size >= capacity) entries.delete(entries.keys().next().value!);
      entries.set(credential, value);
    },
    delete(credential) {
      entries.delete(credential);
    },
    get size() {
      return entries.size;
    },
  };
}

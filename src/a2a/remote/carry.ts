// Which chats a remote agent's proxy has carried, and how far its stored mark may move (pure: the
// proxy does the I/O). The mark is a low-water mark: every chat with an id up to it is finished
// (answered, or failed for good); chats run concurrently per conversation, so one finished early
// waits in `done` until those below it finish too. A chat kept for the back-log (the agent went away
// mid-call) holds the mark below it until it is carried. `done` and `pending` are what stop a chat
// from being carried twice when the back-log and live delivery both bring it.

export class CarryLedger {
  /** Enqueued, not finished. */
  private readonly pending = new Set<number>();
  /** Failed because the agent went away: carried again from the back-log. */
  private readonly kept = new Set<number>();
  /** Finished, above the mark. */
  private readonly done = new Set<number>();

  constructor(private mark: number) {}

  get carried(): number {
    return this.mark;
  }

  get hasKept(): boolean {
    return this.kept.size > 0;
  }

  /** Whether a chat should be carried now (false: at or below the mark, in flight, or finished); if so it is pending. */
  take(id: number): boolean {
    if (id <= this.mark || this.pending.has(id) || this.done.has(id)) return false;
    this.kept.delete(id);
    this.pending.add(id);
    return true;
  }

  /** A chat was carried (or failed for good). Returns the new mark when it moved, else undefined. */
  finish(id: number): number | undefined {
    if (!this.pending.delete(id)) return undefined;
    this.done.add(id);
    return this.advance();
  }

  /** A chat could not be carried because the agent went away: it stays for the back-log. */
  keep(id: number): void {
    if (this.pending.delete(id)) this.kept.add(id);
  }

  /**
   * A back-log was read: kept chats it no longer lists (older than its bound) are given up, so they
   * do not hold the mark forever. Returns the new mark when it moved.
   */
  expire(listed: ReadonlySet<number>): number | undefined {
    for (const id of this.kept) {
      if (listed.has(id)) continue;
      this.kept.delete(id);
      this.done.add(id);
    }
    return this.advance();
  }

  private advance(): number | undefined {
    let floor = Infinity;
    for (const id of this.pending) floor = Math.min(floor, id);
    for (const id of this.kept) floor = Math.min(floor, id);
    let next = this.mark;
    for (const id of this.done) if (id < floor && id > next) next = id;
    if (next === this.mark) return undefined;
    this.mark = next;
    for (const id of this.done) if (id <= next) this.done.delete(id);
    return next;
  }
}

/** One line naming why a call failed, for the human: cut short, with the credential and any bearer token taken out. */
export function failureLine(err: unknown, secrets: readonly string[], max = 200): string {
  let text = err instanceof Error ? err.message : String(err);
  for (const secret of secrets) if (secret) text = text.split(secret).join('[redacted]');
  text = text
    .replace(/Bearer\s+\S+/gi, 'Bearer [redacted]')
    .replace(/\s+/g, ' ')
    .trim();
  if (text.length > max) text = `${text.slice(0, max - 1)}…`;
  return `(the call to the agent failed: ${text || 'no reason given'})`;
}

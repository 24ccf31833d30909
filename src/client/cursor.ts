// Where the client resumes after a reconnect: the newest message id it received (`since`), so
// nothing is missed or seen twice. A monitor copy shares its CHAT's id, so the type is kept beside it.

export class ResumeCursor {
  private id: number | undefined;
  private type: string | undefined;
  /** This connection replays from `since`: the hub may answer with ACKs ahead of replayed frames. */
  private resuming = false;

  constructor(since: number | undefined) {
    this.id = since;
  }

  /** The newest message id received (or the `since` the client started from). */
  get lastId(): number | undefined {
    return this.id;
  }

  /** A new connection starts: it resumes after the cursor, when there is one. */
  connecting(): number | undefined {
    this.resuming = this.id !== undefined;
    return this.id;
  }

  /** Without a replay the hub sends every earlier frame for us before an ACK: its id is a safe cursor. */
  acked(id: number): void {
    if (!this.resuming) this.advance(id, 'ACK');
  }

  /** A frame with this id and type was delivered before (a replay overlapping live delivery). */
  seen(id: number, type: string): boolean {
    return this.id !== undefined && (id < this.id || (id === this.id && type === this.type));
  }

  advance(id: number, type: string): void {
    if (this.id === undefined || id > this.id) {
      this.id = id;
      this.type = type;
    }
  }
}

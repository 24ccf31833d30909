// Paces the closes of slow consumers. A fan-out finds its stalled readers together (they all fell a
// window behind on the same frames), and closing one costs about 0.1 ms (the connection actor's
// transitions, the close frame, the log line): a thousand at once held the loop for 140 ms, which
// every reading client felt. The socket stops being written to at once (see outlet.ts); its close
// then waits its turn, taking at most about a millisecond of each loop turn, so deliveries to
// everyone else go on in between.

export interface PacedClose {
  closeNow(): void;
}

export class ClosePacer {
  private queue: Array<PacedClose | undefined> = [];
  private head = 0;
  private scheduled = false;

  /**
   * @param budgetMs time a loop turn may spend on closes (at least one close runs per turn)
   * @param now the clock the budget is read on
   */
  constructor(
    private readonly budgetMs = 1,
    private readonly now: () => number = () => performance.now(),
  ) {}

  add(close: PacedClose): void {
    this.queue.push(close);
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(this.run);
  }

  /** Closes waiting their turn. */
  get pending(): number {
    return this.queue.length - this.head;
  }

  private readonly run = (): void => {
    const until = this.now() + this.budgetMs;
    do {
      const close = this.queue[this.head]!;
      this.queue[this.head++] = undefined;
      close.closeNow();
    } while (this.head < this.queue.length && this.now() < until);
    if (this.head < this.queue.length) {
      setImmediate(this.run);
      return;
    }
    this.queue = [];
    this.head = 0;
    this.scheduled = false;
  };
}

// PRESENCE for a dashboard that asked for batches (`presence=batched` on the upgrade): the changes of
// the last 250 ms, the latest per agent, go out as one PRESENCE_BATCH frame instead of one frame per
// change. When 100k agents reconnect after a node dies, a dashboard then gets four frames a second
// carrying at most one entry per agent, not tens of thousands of frames it would parse and drop.
import { presenceBatchFrame } from '../protocol/frames.js';

export const PRESENCE_BATCH_MS = 250;

export class PresenceBatch {
  /** The latest PRESENCE text per agent since the last batch; re-set entries move to the end. */
  private pending = new Map<number, string>();
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly send: (text: string) => void,
    private readonly now: () => string = () => new Date().toISOString(),
    private readonly intervalMs = PRESENCE_BATCH_MS,
  ) {}

  add(agentId: number, text: string): void {
    this.pending.delete(agentId);
    this.pending.set(agentId, text);
    if (this.timer) return;
    this.timer = setTimeout(() => this.flush(), this.intervalMs);
    this.timer.unref();
  }

  /** Sends what is pending as one frame (nothing when nothing changed). */
  flush(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    if (this.pending.size === 0) return;
    const texts = [...this.pending.values()];
    this.pending.clear();
    this.send(presenceBatchFrame(texts, this.now()));
  }

  /** The socket is gone: nothing more is sent. */
  stop(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.pending.clear();
  }
}

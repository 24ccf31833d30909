// Frames on their way to the hub. Each gets a local_id; a stored type stays here until the hub
// confirms it (ACK for agents, the echo of the frame for humans) or refuses it (ERROR naming the
// local_id). What is unconfirmed when the socket drops is sent again after the reconnect, and again
// after `ackTimeoutMs` without an answer: the hub stores a (sender, local_id) once, so a repeat is
// never a duplicate. Stream chunks are not stored by the hub and get no answer: they leave the outbox
// once written.

export interface Receipt {
  local_id: string;
  /** The stored message's id; absent for frames the hub relays without storing. */
  id?: number;
  timestamp?: string;
}

interface Entry {
  localId: string;
  text: string;
  /** The hub answers this frame: it waits here for the answer. */
  tracked: boolean;
  /** Written on the current connection, and when (epoch ms). */
  sentAt?: number;
  resolve(receipt: Receipt): void;
  reject(error: Error): void;
}

export class OutboxFullError extends Error {
  constructor(limit: number) {
    super(`more than ${limit} frames are waiting for the hub; send fewer or wait for the connection`);
    this.name = 'OutboxFullError';
  }
}

export class Outbox {
  private readonly entries = new Map<string, Entry>();

  constructor(private readonly maxQueued: number) {}

  get size(): number {
    return this.entries.size;
  }

  add(localId: string, text: string, tracked: boolean): Promise<Receipt> {
    if (this.entries.size >= this.maxQueued) return Promise.reject(new OutboxFullError(this.maxQueued));
    return new Promise((resolve, reject) => this.entries.set(localId, { localId, text, tracked, resolve, reject }));
  }

  /**
   * Writes what is due, in the order it was added: never written on this connection, or unanswered
   * for `resendAfterMs`. `write` returns false when the socket cannot take it (it stays due).
   */
  flush(write: (text: string) => boolean, now: number, resendAfterMs = Infinity): number {
    let written = 0;
    for (const entry of this.entries.values()) {
      if (entry.sentAt !== undefined && now - entry.sentAt < resendAfterMs) continue;
      if (!write(entry.text)) break;
      written++;
      if (entry.tracked) entry.sentAt = now;
      else this.settle(entry.localId)?.resolve({ local_id: entry.localId });
    }
    return written;
  }

  /** The connection dropped: everything unanswered is due again on the next one. */
  connectionLost(): void {
    for (const entry of this.entries.values()) entry.sentAt = undefined;
  }

  confirm(localId: string, receipt: Receipt): boolean {
    const entry = this.settle(localId);
    entry?.resolve(receipt);
    return entry !== undefined;
  }

  refuse(localId: string, error: Error): boolean {
    const entry = this.settle(localId);
    entry?.reject(error);
    return entry !== undefined;
  }

  has(localId: string): boolean {
    return this.entries.has(localId);
  }

  /** The client stopped: nothing here will be sent. */
  failAll(error: Error): void {
    const entries = [...this.entries.values()];
    this.entries.clear();
    for (const entry of entries) entry.reject(error);
  }

  private settle(localId: string): Entry | undefined {
    const entry = this.entries.get(localId);
    this.entries.delete(localId);
    return entry;
  }
}

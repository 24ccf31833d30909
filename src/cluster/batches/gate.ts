// The visibility order of cluster mode. Every node's batches commit in id order (the commit-order
// row, see store/batchWriter.ts), and each batch says where it sits: every id up to `prev` was final
// when it committed, its own ids are at most `last`. A node hands a batch to its sockets only once
// it has handed over everything up to `prev`, so a client that saw id N has seen every lower id
// meant for it, and resuming with `since=N` can never skip one.
//
// Batches arrive from the bus in any order across nodes. What the bus did not bring is read from the
// store: everything committed after the last id handed over, one page per read, merged in id order
// with the batches waiting here (a waiting batch goes out whole in place of its rows, so its
// senders get their answers). While the bus is up a read happens once a batch has waited `graceMs`
// for an earlier one (its node died between commit and publish, say); while it is down the store is
// the bus: a read follows at once whenever this node's own batch waits, and every `tickMs`
// otherwise, and full pages are read back to back, so a backlog never builds up.

export interface GatedBatch {
  /** Every message id up to this was final when the batch committed. */
  prev: number;
  /** The batch's highest id (`prev` when it stored no message). */
  last: number;
  /**
   * Hands the batch over. Its frames with an id up to `skipUpTo` were already delivered from the
   * store (the batch arrived after its rows were read) and must be left out.
   */
  run(skipUpTo: number): void;
}

export interface OrderGateDeps<R extends { id: number }> {
  /** How long a batch waits for the ones before it, while the bus is up, before the store is read. */
  graceMs: number;
  /** While the bus is down: how often the store is read when nothing of this node's is waiting. */
  tickMs: number;
  /** Rows per read; a full page is followed by the next read at once. */
  pageSize: number;
  /**
   * Committed rows with an id above `after`, oldest first, at most `limit`. It resolves only once
   * every batch of this node that could be among them has been offered, so none of this node's
   * own rows is handed over as a row (its batch carries the senders' answers).
   */
  read(after: number, limit: number): Promise<R[]>;
  /** Hands rows read from the store to this node's sockets (one round). */
  hand(rows: R[]): void;
  onError(err: unknown): void;
  setTimer?: (fn: () => void, ms: number) => unknown;
  clearTimer?: (timer: unknown) => void;
  /** Milliseconds, monotonic (for how far behind the node is). */
  now?: () => number;
}

export interface GateState {
  started: boolean;
  /** Whether batches come over the bus (false: the store is read on every tick). */
  bus: boolean;
  through: number;
  filledThrough: number;
  pending: number;
  /** The newest commit known to have happened (from batches or from polling the store). */
  known: number;
  /** Whether a read of the store is under way. */
  filling: boolean;
  /** Reads of the store so far. */
  fills: number;
  /** How long this node has known of a commit it has not handed over yet (ms; 0: caught up). */
  behindMs: number;
}

/** Commits learned of within this many ms share one mark (how far behind is tracked per mark). */
const MARK_MS = 50;

export function createOrderGate<R extends { id: number }>(deps: OrderGateDeps<R>) {
  const setTimer = deps.setTimer ?? ((fn: () => void, ms: number) => setTimeout(fn, ms).unref());
  const clearTimer = deps.clearTimer ?? ((t: unknown) => clearTimeout(t as NodeJS.Timeout));
  const now = deps.now ?? (() => performance.now());
  let started = false;
  let bus = true;
  /** Everything up to this id has been handed over (or was before this node started). */
  let through = 0;
  /** Ids up to this were delivered from the store: late batches leave them out. */
  let filledThrough = 0;
  let known = 0;
  let reading = false;
  /** A read failed: the next one waits for the timer instead of following at once. */
  let backingOff = false;
  let reads = 0;
  let timer: unknown;
  /** Batches waiting for an earlier one, by `prev` ascending. */
  const pending: GatedBatch[] = [];
  /** When this node learned of commits up to `id`, oldest first; marks at or below `through` are dropped. */
  const marks: Array<{ id: number; at: number }> = [];

  function learn(id: number): void {
    if (id <= known) return;
    known = id;
    const t = now();
    const last = marks[marks.length - 1];
    if (last && t - last.at < MARK_MS) last.id = id;
    else marks.push({ id, at: t });
  }

  function forget(): void {
    let n = 0;
    while (n < marks.length && marks[n]!.id <= through) n++;
    if (n > 0) marks.splice(0, n);
  }

  function runBatch(batch: GatedBatch): void {
    if (batch.prev > through) through = batch.prev;
    if (batch.last > through) through = batch.last;
    try {
      batch.run(filledThrough);
    } catch (err) {
      deps.onError(err);
    }
  }

  function arm(ms: number): void {
    if (timer === undefined) timer = setTimer(onTimer, ms);
  }

  function disarm(): void {
    if (timer !== undefined) clearTimer(timer);
    timer = undefined;
  }

  function drain(): void {
    if (!started || reading) return;
    while (pending.length > 0 && pending[0]!.prev <= through) runBatch(pending.shift()!);
    if (known < through) known = through;
    forget();
    const behind = pending.length > 0 || known > through;
    if (!bus) {
      // The store is the bus: this node's own batch waits only for one read, the others' for a tick.
      if (pending.length > 0 && !backingOff) return void read();
      return arm(deps.tickMs);
    }
    if (behind) arm(deps.graceMs);
    else disarm();
  }

  function onTimer(): void {
    timer = undefined;
    backingOff = false;
    if (reading || !started) return;
    if (bus && pending.length === 0 && known <= through) return drain();
    void read();
  }

  async function read(): Promise<void> {
    disarm();
    reading = true;
    reads++;
    // Every id up to `known` committed before this read starts (the batches offered included), so
    // the read sees each row up to it.
    const safe = known;
    let full = false;
    try {
      const rows = await deps.read(through, deps.pageSize);
      full = rows.length >= deps.pageSize;
      merge(rows, full ? 0 : safe);
    } catch (err) {
      backingOff = true;
      deps.onError(err);
    } finally {
      reading = false;
    }
    if (!started) return;
    if (full && !backingOff) return void read();
    if (backingOff) return arm(bus ? deps.graceMs : deps.tickMs);
    drain();
  }

  /**
   * Hands over the rows read and the batches waiting among them, in id order. `complete`: every
   * id up to it was among the rows read (the page was not full), so `through` may move up to it.
   */
  function merge(rows: readonly R[], complete: number): void {
    let chunk: R[] = [];
    const flush = () => {
      if (chunk.length === 0) return;
      const out = chunk;
      chunk = [];
      try {
        deps.hand(out);
      } catch (err) {
        deps.onError(err);
      }
    };
    for (const row of rows) {
      if (row.id <= through) continue;
      // A waiting batch that sits before this row goes out first, whole (its rows are skipped below).
      while (pending.length > 0 && pending[0]!.prev < row.id) {
        flush();
        runBatch(pending.shift()!);
      }
      if (row.id <= through) continue;
      chunk.push(row);
      through = row.id;
      if (through > filledThrough) filledThrough = through;
      learn(row.id);
    }
    flush();
    while (pending.length > 0 && pending[0]!.prev <= complete) runBatch(pending.shift()!);
    if (complete > through) through = complete;
    if (through > filledThrough) filledThrough = through;
  }

  return {
    /** Sets where this node starts: ids up to `through` are before its time (resume reads them). */
    start(initial: number): void {
      started = true;
      through = Math.max(through, initial);
      filledThrough = Math.max(filledThrough, initial);
      drain();
    },

    /** A committed batch, this node's or another's. */
    offer(batch: GatedBatch): void {
      learn(batch.last);
      let i = pending.length;
      while (i > 0 && pending[i - 1]!.prev > batch.prev) i--;
      pending.splice(i, 0, batch);
      drain();
    },

    /** The store says commits reached `committed`: a batch not heard of by then is read from the store. */
    observe(committed: number): void {
      learn(committed);
      drain();
    },

    /** Whether batches come over the bus; while they do not, the store is read on every tick. */
    setBus(up: boolean): void {
      if (bus === up) return;
      bus = up;
      disarm();
      // Back from an outage: what was committed since the last read is read now, not after a grace.
      if (up && started && !reading && (pending.length > 0 || known > through)) return void read();
      drain();
    },

    /** After the ids restarted (a development reset): start over from `initial`. */
    restart(initial: number): void {
      through = filledThrough = known = initial;
      marks.length = 0;
      drain();
    },

    /** How long this node has known of a commit it has not handed over yet (ms; 0 when caught up). */
    behindMs(): number {
      return marks.length > 0 && known > through ? Math.max(0, now() - marks[0]!.at) : 0;
    },

    state(): GateState {
      return { started, bus, through, filledThrough, pending: pending.length, known, filling: reading, fills: reads, behindMs: this.behindMs() };
    },

    stop(): void {
      disarm();
      started = false;
    },
  };
}
export type OrderGate = ReturnType<typeof createOrderGate>;

// The visibility order of cluster mode. Every node's batches commit in id order (the commit-order
// row, see store/batchWriter.ts), and each batch says where it sits: every id up to `prev` was final
// when it committed, its own ids are at most `last`. A node hands a batch to its sockets only once
// it has handed over everything up to `prev`, so a client that saw id N has seen every lower id
// meant for it, and resuming with `since=N` can never skip one. Batches arrive from the bus in any
// order across nodes; one that waits longer than `graceMs` for an earlier batch (its node died
// between commit and publish, or the bus was down) is filled in from the store instead.

export interface GatedBatch {
  /** Every message id up to this was final when the batch committed. */
  prev: number;
  /** The batch's highest id (`prev` when it stored no message). */
  last: number;
  /**
   * Hands the batch over. Its frames with an id up to `skipUpTo` were already delivered from the
   * store (the batch arrived after its gap was filled) and must be left out.
   */
  run(skipUpTo: number): void;
}

export interface OrderGateDeps {
  /** How long a batch waits for the ones before it before the gap is read from the store. */
  graceMs: number;
  /** Delivers every stored row with an id in (after, upTo] to this node's sockets. */
  fill(after: number, upTo: number): Promise<void>;
  onError(err: unknown): void;
  setTimer?: (fn: () => void, ms: number) => unknown;
  clearTimer?: (timer: unknown) => void;
}

export interface GateState {
  started: boolean;
  through: number;
  filledThrough: number;
  pending: number;
  /** The newest commit known to have happened (from batches or from polling the store). */
  known: number;
  filling: boolean;
  fills: number;
}

export function createOrderGate(deps: OrderGateDeps) {
  const setTimer = deps.setTimer ?? ((fn: () => void, ms: number) => setTimeout(fn, ms).unref());
  const clearTimer = deps.clearTimer ?? ((t: unknown) => clearTimeout(t as NodeJS.Timeout));
  let started = false;
  /** Everything up to this id has been handed over (or was before this node started). */
  let through = 0;
  /** Ids up to this were delivered from the store: late batches leave them out. */
  let filledThrough = 0;
  let known = 0;
  let filling = false;
  let fills = 0;
  let timer: unknown;
  /** Batches waiting for an earlier one, by `prev` ascending. */
  const pending: GatedBatch[] = [];

  function drain(): void {
    if (!started || filling) return;
    while (pending.length > 0 && pending[0]!.prev <= through) {
      const batch = pending.shift()!;
      if (batch.last > through) through = batch.last;
      try {
        batch.run(filledThrough);
      } catch (err) {
        deps.onError(err);
      }
    }
    if (known < through) known = through;
    if ((pending.length > 0 || known > through) && timer === undefined) timer = setTimer(onGrace, deps.graceMs);
    if (pending.length === 0 && known <= through && timer !== undefined) {
      clearTimer(timer);
      timer = undefined;
    }
  }

  function onGrace(): void {
    timer = undefined;
    if (filling) return;
    const target = pending.length > 0 ? pending[0]!.prev : known;
    if (target <= through) return drain();
    filling = true;
    fills++;
    const after = through;
    deps
      .fill(after, target)
      .then(
        () => {
          if (target > through) through = target;
          if (target > filledThrough) filledThrough = target;
        },
        (err: unknown) => deps.onError(err),
      )
      .finally(() => {
        filling = false;
        drain();
      });
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
      if (batch.last > known) known = batch.last;
      let i = pending.length;
      while (i > 0 && pending[i - 1]!.prev > batch.prev) i--;
      pending.splice(i, 0, batch);
      drain();
    },

    /** The store says commits reached `committed`: a batch not heard of by then is filled in after the grace. */
    observe(committed: number): void {
      if (committed > known) known = committed;
      drain();
    },

    /** After the ids restarted (a development reset): start over from `initial`. */
    restart(initial: number): void {
      through = filledThrough = known = initial;
      drain();
    },

    state(): GateState {
      return { started, through, filledThrough, pending: pending.length, known, filling, fills };
    },

    stop(): void {
      if (timer !== undefined) clearTimer(timer);
      timer = undefined;
      started = false;
    },
  };
}
export type OrderGate = ReturnType<typeof createOrderGate>;

// An answer's abort signal, joined by hand. AbortSignal.any and AbortSignal.timeout each build a
// signal the runtime tracks weakly until it is collected; at a thousand conversations they were a
// visible share of CPU and of GC. This one detaches its listener as soon as the answer is over.
import { systemTimers, type TimerHandle, type Timers } from '../clock.js';

export interface LinkedSignal {
  readonly signal: AbortSignal;
  /** Detaches from the sources (and stops the timer); call once the work is over. */
  dispose(): void;
}

/** One answer's signal: see `turnSignal`. */
export interface TurnSignal extends LinkedSignal {
  /** The time ran out before anything else aborted it. */
  readonly timedOut: boolean;
  /** Aborts it with `reason` from inside (the answer is over early), unless it is aborted already. */
  stop(reason: unknown): void;
}

/**
 * The signal an answer runs under: aborted when `outer` aborts, after `ms` with a TimeoutError (as
 * AbortSignal.timeout does), or by `stop`, with the first reason. One controller, one listener and
 * one timer per answer, where a timeout signal, a cap signal and two links cost four controllers.
 */
export function turnSignal(outer: AbortSignal, ms: number, timers: Timers = systemTimers): TurnSignal {
  const controller = new AbortController();
  let timedOut = false;
  let timer: TimerHandle | undefined;
  const onAbort = () => abort(outer.reason);
  const dispose = () => {
    timers.clearTimeout(timer);
    outer.removeEventListener('abort', onAbort);
  };
  const abort = (reason: unknown) => {
    if (controller.signal.aborted) return;
    dispose();
    controller.abort(reason);
  };
  if (outer.aborted) {
    controller.abort(outer.reason);
  } else {
    outer.addEventListener('abort', onAbort);
    timer = timers.setTimeout(() => {
      timedOut = true;
      abort(new DOMException('The operation was aborted due to timeout', 'TimeoutError'));
    }, ms);
    // Like AbortSignal.timeout, the timer alone does not keep the process alive.
    timer.unref?.();
  }
  return {
    signal: controller.signal,
    get timedOut() {
      return timedOut;
    },
    stop: abort,
    dispose,
  };
}

// Abort signals joined by hand. AbortSignal.any and AbortSignal.timeout each build a signal the
// runtime tracks weakly until it is collected; at a thousand conversations they were a visible
// share of CPU and of GC. These detach their listeners as soon as the answer or step is over.
export interface LinkedSignal {
  readonly signal: AbortSignal;
  /** Detaches from the sources (and stops the timer); call once the work is over. */
  dispose(): void;
}

/** Aborts with the reason of whichever source aborts first. */
export function linkSignals(sources: readonly AbortSignal[]): LinkedSignal {
  const controller = new AbortController();
  const already = sources.find((s) => s.aborted);
  if (already) {
    controller.abort(already.reason);
    return { signal: controller.signal, dispose: () => undefined };
  }
  const onAbort = function (this: AbortSignal) {
    controller.abort(this.reason);
    dispose();
  };
  const dispose = () => {
    for (const source of sources) source.removeEventListener('abort', onAbort);
  };
  for (const source of sources) source.addEventListener('abort', onAbort);
  return { signal: controller.signal, dispose };
}

/** Aborts after `ms` with a TimeoutError, as AbortSignal.timeout does. */
export function timeoutSignal(ms: number): LinkedSignal {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(new DOMException('The operation was aborted due to timeout', 'TimeoutError')), ms);
  // Like AbortSignal.timeout, the timer alone does not keep the process alive.
  timer.unref();
  return { signal: controller.signal, dispose: () => clearTimeout(timer) };
}

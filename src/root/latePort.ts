// A port connected after construction: two parts that call each other (the pipeline delivers
// through the router, the router reports presence to the pipeline) are built one after the other,
// and the first one's port is connected once the second exists. Neither calls the other before
// the hub has finished wiring them, so a call through an unconnected port is a wiring mistake.
export interface LatePort<Args extends unknown[]> {
  /** What the first part is given: forwards to the connected implementation. */
  readonly call: (...args: Args) => void;
  connect(target: (...args: Args) => void): void;
}

export function latePort<Args extends unknown[]>(name: string): LatePort<Args> {
  let target: ((...args: Args) => void) | undefined;
  return {
    call: (...args) => {
      if (!target) throw new Error(`${name} was called before it was connected`);
      target(...args);
    },
    connect(next) {
      if (target) throw new Error(`${name} is already connected`);
      target = next;
    },
  };
}

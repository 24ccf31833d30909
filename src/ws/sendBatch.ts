// Corked sending for a whole delivery round. Outside a uWS callback every send is its own write
// system call; during a round each socket's frames are queued instead and written with one cork
// per socket at the end (one syscall for all of a socket's frames in a group commit).

/** A socket that can take its queued frames in one go. */
export interface BatchedSocket {
  flushQueued(): void;
}

export interface SendBatch {
  /** Runs `fn` as one round: sends made inside it go out together when it returns. */
  run<T>(fn: () => T): T;
  /** True inside a round. */
  readonly active: boolean;
  /** Called by a socket when it queues its first frame of the round. */
  enlist(socket: BatchedSocket): void;
}

export function createSendBatch(): SendBatch {
  let depth = 0;
  let dirty: BatchedSocket[] = [];
  const flush = () => {
    // A socket flushed here may enlist again if a close handler delivers; loop until quiet.
    while (dirty.length > 0) {
      const sockets = dirty;
      dirty = [];
      for (const socket of sockets) socket.flushQueued();
    }
  };
  return {
    run(fn) {
      depth++;
      try {
        return fn();
      } finally {
        if (--depth === 0) flush();
      }
    },
    get active() {
      return depth > 0;
    },
    enlist(socket) {
      dirty.push(socket);
    },
  };
}

// The errors a send can fail with, and the one line any error shows as.

/** The hub refused a frame (ERROR naming its local_id), or the client refused to send it. */
export class FrameRefusedError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'FrameRefusedError';
  }
}

/** The client stopped before the frame was confirmed; the line says why. */
export class ClientStoppedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ClientStoppedError';
  }
}

export function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

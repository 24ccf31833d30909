// A recording fake of the delivery core's Endpoint (one socket, or an agent inside the hub): it keeps
// every frame the router hands it, with the stored id and frame object, and every close it is asked for,
// so tests can check what reached whom.
import type { Endpoint, Principal } from '../../src/delivery/types.js';
import type { MessageFrame } from '../../src/protocol/frames.js';

let lastKey = 0;

/** A key no other endpoint of the test process has (the router's address table is keyed by it). */
export const nextEndpointKey = (): number => ++lastKey;

export class RecordingEndpoint implements Endpoint {
  readonly key = nextEndpointKey();
  readonly received: Array<{ text: string; id?: number; frame?: MessageFrame }> = [];
  readonly closes: Array<{ code: number; reason: string }> = [];
  constructor(
    readonly user: Principal,
    readonly inHub = false,
  ) {}
  deliver(text: string, id?: number, frame?: MessageFrame): void {
    this.received.push({ text, id, frame });
  }
  close(code: number, reason: string): void {
    this.closes.push({ code, reason });
  }
  get texts(): string[] {
    return this.received.map((r) => r.text);
  }
}

// Metrics of the WebSocket edge: sockets by role, connects and disconnects, frames and bytes each
// way, ERROR frames by code, slow-consumer and rate-limit cut-offs. Counted per frame or per
// delivery with children bound at start (one Map lookup, no allocation), never per recipient.
import { ClientFrameTypes } from '../protocol/frames.js';
import { ServerFrameTypes } from '../protocol/serverFrames.js';
import { Roles } from '../protocol/roles.js';
import { childrenByValue, type MetricsFactory } from '../metrics/families.js';
import type { DeliveryMeter } from '../delivery/types.js';
import { CloseCode, FrameErrorCodes } from '../protocol/errors.js';

/** Close codes worth a series of their own: ours, and the transport's for a vanished peer. */
const CLOSE_CODES = [...new Set(Object.values(CloseCode)), 1005, 1006].map(String);
/** Frames turned away before dispatch (rate limit, size, JSON, type, payload) count under this type. */
const REFUSED = 'refused';

export interface WsMeter extends DeliveryMeter {
  opened(role: string): void;
  closed(role: string, code: number): void;
  /** A frame that decoded and validated, before it is dispatched. */
  received(type: string, bytes: number): void;
  /** A frame turned away before dispatch: over the rate limit, too large, not JSON, unknown type, bad payload. */
  refused(bytes: number): void;
  /** An ERROR frame sent (`text`), by its payload code. */
  error(code: string, text: string): void;
  slowConsumer(): void;
  rateLimitClose(): void;
  /** uWS dropped a connection itself (invalid UTF-8, a frame above the hard cap, a protocol error). */
  transportDrop(reason: TransportDropKind): void;
}

/** Why uWS dropped a connection itself; `idle`: the client sent nothing and answered no ping for WS_IDLE_TIMEOUT. */
export const TransportDropKinds = ['invalid_utf8', 'too_large', 'protocol', 'idle'] as const;
export type TransportDropKind = (typeof TransportDropKinds)[number];

const NOOP: WsMeter = {
  opened: () => undefined,
  closed: () => undefined,
  received: () => undefined,
  refused: () => undefined,
  sent: () => undefined,
  error: () => undefined,
  slowConsumer: () => undefined,
  rateLimitClose: () => undefined,
  transportDrop: () => undefined,
};

export function createWsMeter(factory: MetricsFactory): WsMeter {
  // Disabled: skip even the byte counting.
  if (!factory.enabled) return NOOP;
  const roles = { role: Roles };
  const open = factory.gauge({ name: 'hub_ws_open_sockets', help: 'Open WebSocket connections, by role of the user', labels: roles });
  const connects = factory.counter({ name: 'hub_ws_connects_total', help: 'WebSocket connections opened, by role', labels: roles });
  const disconnects = factory.counter({
    name: 'hub_ws_disconnects_total',
    help: 'WebSocket connections closed, by role and close code',
    labels: { ...roles, code: CLOSE_CODES },
  });
  const framesIn = factory.counter({
    name: 'hub_ws_frames_received_total',
    help: 'Frames received from clients, by type (`refused`: turned away with an ERROR before dispatch)',
    labels: { type: [...ClientFrameTypes, REFUSED] },
  });
  const framesOut = factory.counter({ name: 'hub_ws_frames_sent_total', help: 'Frames handed to sockets, by type', labels: { type: ServerFrameTypes } });
  const bytesIn = factory.counter({ name: 'hub_ws_received_bytes_total', help: 'Payload bytes of frames received' });
  const bytesOut = factory.counter({ name: 'hub_ws_sent_bytes_total', help: 'Payload bytes of frames handed to sockets' });
  const errors = factory.counter({ name: 'hub_ws_error_frames_total', help: 'ERROR frames sent, by code', labels: { code: FrameErrorCodes } });
  const slow = factory.counter({ name: 'hub_ws_slow_consumer_closes_total', help: 'Sockets cut off as slow consumers (4011)' });
  const rateLimited = factory.counter({ name: 'hub_ws_rate_limit_closes_total', help: 'Sockets closed for sending past the rate limit (4008)' });
  const drops = factory.counter({
    name: 'hub_ws_transport_drops_total',
    help: 'Connections the WebSocket transport dropped without a close frame, by reason (invalid UTF-8 text, a frame above WS_HARD_FRAME_BYTES, a protocol error)',
    labels: { reason: TransportDropKinds },
  });

  const openBy = childrenByValue(open, 'role', Roles);
  const connectsBy = childrenByValue(connects, 'role', Roles);
  const inBy = childrenByValue(framesIn, 'type', ClientFrameTypes);
  const refusedFrames = framesIn.labels({ type: REFUSED });
  const outBy = childrenByValue(framesOut, 'type', ServerFrameTypes);
  const errorsBy = childrenByValue(errors, 'code', FrameErrorCodes);

  return {
    opened(role) {
      openBy(role).inc();
      connectsBy(role).inc();
    },
    closed(role, code) {
      openBy(role).dec();
      disconnects.labels({ role, code }).inc();
    },
    received(type, bytes) {
      inBy(type).inc();
      bytesIn.inc(bytes);
    },
    refused(bytes) {
      refusedFrames.inc();
      bytesIn.inc(bytes);
    },
    sent(type, frames, text) {
      if (frames === 0) return;
      outBy(type).inc(frames);
      // Measured once per delivery: every recipient got the same string.
      bytesOut.inc(frames * Buffer.byteLength(text));
    },
    error(code, text) {
      errorsBy(code).inc();
      outBy('ERROR').inc();
      bytesOut.inc(Buffer.byteLength(text));
    },
    slowConsumer() {
      slow.inc();
    },
    rateLimitClose() {
      rateLimited.inc();
    },
    transportDrop(reason) {
      drops.labels({ reason }).inc();
    },
  };
}

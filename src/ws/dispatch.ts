// Each frame a socket sends: refused while an abuse close is pending, cut off far over the size
// limit, rate-limited, decoded and validated, then handed to the pipeline as a typed value (or, for
// a human's AUTH_RESPONSE, to Butler's authorizations).
import type { Logger } from 'pino';
import type uWS from 'uWebSockets.js';
import type { Pipeline } from '../delivery/pipeline.js';
import type { Principal } from '../delivery/types.js';
import { Errors, HubError } from '../errors.js';
import { CloseCode } from '../protocol/errors.js';
import type { AuthResponseFrame, ClientFrame } from '../protocol/frames.js';
import { isMachineRole } from '../protocol/roles.js';
import { decodeFrame, localIdHint } from './inbox.js';
import type { WsMeter } from './metrics.js';
import type { SocketOutlet } from './outlet.js';
import type { SocketData, WsLimits } from './socketData.js';

/**
 * Frames up to this many times WS_MAX_FRAME_BYTES get an ERROR and the socket stays; larger ones
 * close it with 1009. Above WS_HARD_FRAME_BYTES uWS itself drops the connection (it cannot read it).
 */
const ERROR_FACTOR = 2;
/** How long an abuse close waits for the answers of frames already handed to the pipeline. */
const ANSWER_WAIT_MS = 5000;

export interface FrameDeps {
  limits: WsLimits;
  logger: Logger;
  pipeline: Pipeline;
  /** An AUTH_RESPONSE frame from a human; rejects with a HubError to answer with ERROR. */
  authResponse(user: Principal, payload: AuthResponseFrame['payload']): Promise<void>;
  meter: WsMeter;
}

export function createFrameHandler(deps: FrameDeps) {
  const { limits, logger, pipeline, meter } = deps;
  const closeAbove = limits.maxFrameBytes * ERROR_FACTOR;

  function dispatch(data: SocketData, outlet: SocketOutlet, frame: ClientFrame, bytes: number): void {
    const user = data.session!.user;
    if (frame.type === 'AUTH_RESPONSE') {
      if (isMachineRole(user.role)) {
        outlet.sendError('forbidden', 'only human users answer authorization requests', frame.local_id);
        return;
      }
      deps.authResponse(user, frame.payload).catch((err: unknown) => {
        const error = err instanceof HubError ? err : Errors.unavailable('the answer could not be recorded; send it again');
        if (!(err instanceof HubError)) logger.error({ err }, 'recording an authorization answer failed');
        outlet.sendError(error.kind, error.message, frame.local_id);
      });
      return;
    }
    outlet.handedOver();
    pipeline.submit(
      user,
      {
        type: frame.type,
        payload: frame.payload,
        target_id: frame.target_id,
        conversation_id: frame.conversation_id,
        local_id: frame.local_id,
        stream_id: 'stream_id' in frame ? frame.stream_id : undefined,
      },
      outlet,
      bytes,
    );
  }

  return function message(ws: uWS.WebSocket<SocketData>, message: ArrayBuffer, isBinary: boolean): void {
    const data = ws.getUserData();
    const outlet = data.outlet;
    if (!outlet || outlet.closed) return;
    if (outlet.closing) {
      // Closing for abuse: earlier frames are still answered; this one is refused, so the client
      // knows it was not stored.
      meter.refused(message.byteLength);
      outlet.sendError(outlet.closingError.code, outlet.closingError.message, localIdHint(message, isBinary));
      return;
    }
    const bytes = message.byteLength;
    if (bytes > closeAbove) {
      meter.refused(bytes);
      logger.warn(
        { conn: data.key, user: data.session!.user.username, bytes, limit: limits.maxFrameBytes },
        'frame far over the size limit: closing the socket with 1009',
      );
      const reason = `frame of ${bytes} bytes; the limit is ${limits.maxFrameBytes}`;
      // Frames already handed to the pipeline are answered first, as before an abuse close.
      outlet.closeWhenAnswered(CloseCode.tooLarge, reason, ANSWER_WAIT_MS, 'frame_too_large');
      return;
    }
    if (!data.meters.rate.take()) {
      meter.refused(bytes);
      outlet.sendError('rate_limited', `more than ${limits.rateLimit} frames per second; slow down`, localIdHint(message, isBinary));
      if (!data.meters.rateStrikes.take()) {
        meter.rateLimitClose();
        outlet.closeWhenAnswered(CloseCode.rateLimited, 'rate limit exceeded', ANSWER_WAIT_MS, 'rate_limited');
      }
      return;
    }
    // While the store is slow or away the hub holds what it took, up to WRITE_QUEUE_MAX_BYTES: beyond
    // it a frame is refused before it is parsed, and its sender sends it again later.
    if (!pipeline.admit(bytes)) {
      meter.refused(bytes);
      const full = Errors.writeQueueFull();
      outlet.sendError(full.kind, full.message, localIdHint(message, isBinary));
      return;
    }
    const decoded = decodeFrame(message, isBinary, limits.maxFrameBytes);
    if (!decoded.ok) {
      meter.refused(bytes);
      if (decoded.code === 'frame_too_large') {
        logger.warn(
          { conn: data.key, user: data.session!.user.username, bytes, limit: limits.maxFrameBytes },
          'frame over the size limit: answered with ERROR',
        );
      }
      outlet.sendError(decoded.code, decoded.message, decoded.localId);
      if (!data.meters.badFrames.take()) outlet.closeWhenAnswered(CloseCode.invalidFrames, 'too many invalid frames', ANSWER_WAIT_MS, 'invalid_frame');
      return;
    }
    meter.received(decoded.frame.type, bytes);
    dispatch(data, outlet, decoded.frame, bytes);
  };
}

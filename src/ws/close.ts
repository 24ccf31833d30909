// A socket closes: the outlet stops writing, the connection actor learns it (and unbinds), and the
// close is counted and logged with the code the hub chose, or why the transport dropped it.
import type { Logger } from 'pino';
import type uWS from 'uWebSockets.js';
import type { TransportDropKind, WsMeter } from './metrics.js';
import type { SocketData } from './socketData.js';

interface TransportDrop {
  kind: TransportDropKind;
  text: string;
}

/** Why uWS dropped a connection itself (the reason it gives the close handler with code 1006). */
function transportDropReason(message: ArrayBuffer): TransportDrop | undefined {
  if (message.byteLength === 0) return undefined;
  const text = Buffer.from(message).toString('latin1');
  if (/utf-?8/i.test(text)) return { kind: 'invalid_utf8', text };
  if (/too big/i.test(text)) return { kind: 'too_large', text };
  if (/inactivity/i.test(text)) return { kind: 'idle', text };
  return { kind: 'protocol', text };
}

export function createCloseHandler(deps: { logger: Logger; meter: WsMeter }) {
  const { logger, meter } = deps;
  return function close(ws: uWS.WebSocket<SocketData>, code: number, message: ArrayBuffer): void {
    const data = ws.getUserData();
    // The code the hub closed with, if it did: the outlet knows even when the close happens inside
    // the actor's own transition (a cut-off), before the actor's snapshot shows it.
    const chosen = data.outlet?.endCode ?? data.actor.getSnapshot().context.closeCode;
    const dropped = code === 1006 && chosen === undefined ? transportDropReason(message) : undefined;
    data.outlet?.markClosed();
    data.actor.send({ type: 'SOCKET_CLOSED', code });
    const finalCode = chosen ?? code;
    meter.closed(data.session!.user.role, finalCode);
    const user = data.session?.user.username;
    if (dropped) {
      // uWS fails the connection itself, before the hub sees the frame, and sends no close frame.
      meter.transportDrop(dropped.kind);
      // A silent peer (gone from the network, or its process stalled) is routine, not a fault of the
      // client's: when a node or a network path fails, thousands go at once, and one warn line each
      // would bury the lines that explain it. They are counted (reason "idle") and logged at info.
      if (dropped.kind === 'idle')
        logger.info({ conn: data.key, user, code, reason: dropped.text }, 'websocket closed: the client was silent for WS_IDLE_TIMEOUT');
      else logger.warn({ conn: data.key, user, code, reason: dropped.text }, `the transport dropped the connection: ${dropped.text}`);
      return;
    }
    logger.info({ conn: data.key, user, code: finalCode, reason: data.actor.getSnapshot().context.closeReason }, 'websocket closed');
  };
}

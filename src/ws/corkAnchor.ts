// Answering a WebSocket upgrade after an await, without uWS closing the new socket at random.
//
// uWS upgrades in place: the HTTP socket's memory is shrunk into the WebSocket's. When the upgrade
// runs inside `res.cork()` from an uncorked state (every upgrade answered after the credential
// check, which awaits the store), uWS's cork() then reads the HTTP response state from that reused
// memory and, when a stale byte there has the "Connection: close" bit set, shuts the fresh socket:
// "websocket connected" and "closed 1006" in the same millisecond, with no close frame, for a few
// of the first sockets after some starts (uWebSockets issue 1928; fixed upstream after the build
// this hub installs). A request that really says `Connection: close` hits it every time.
//
// cork() only does that read when it took the cork itself. So the upgrade runs while another
// socket holds the loop's cork: this anchor, the server side of one loopback WebSocket on a private
// uWS app that the hub opens to itself. Inside `anchor.cork()`, `res.cork()` runs its callback as
// is, the 101 goes out uncorked and nothing stale is read.
import type { Logger } from 'pino';
import uWS from 'uWebSockets.js';
import WebSocket from 'ws';

export interface CorkAnchor {
  /** Runs `fn` while the anchor holds the loop's cork (or plainly while there is no anchor). */
  run(fn: () => void): void;
  readonly ready: boolean;
  stop(): void;
}

/** Connects the anchor; resolves once it can be used (or after a failure, which is logged). */
export async function createCorkAnchor(logger: Logger): Promise<CorkAnchor> {
  let anchor: uWS.WebSocket<unknown> | undefined;
  let client: WebSocket | undefined;
  let listenSocket: uWS.us_listen_socket | false = false;
  let stopped = false;
  let warned = false;
  let opened: () => void = () => undefined;

  const app = uWS.App().ws('/', {
    // The anchor only ever holds the cork: no pings, no timeout, nothing to read.
    idleTimeout: 0,
    sendPingsAutomatically: false,
    maxPayloadLength: 16,
    open(ws) {
      anchor = ws;
      opened();
    },
    close() {
      anchor = undefined;
      if (!stopped) connect();
    },
  });

  function connect(): void {
    if (!listenSocket) return;
    client = new WebSocket(`ws://127.0.0.1:${uWS.us_socket_local_port(listenSocket)}/`);
    client.on('error', (err) => logger.warn({ err }, 'the upgrade anchor connection failed'));
  }

  await new Promise<void>((resolve) => {
    app.listen('127.0.0.1', 0, (socket) => {
      listenSocket = socket;
      if (!socket) {
        logger.warn('could not open the upgrade anchor on 127.0.0.1; upgrades are answered without it');
        return resolve();
      }
      opened = resolve;
      connect();
    });
  });
  opened = () => undefined;

  return {
    run(fn) {
      if (anchor) {
        anchor.cork(fn);
        return;
      }
      if (!warned) {
        warned = true;
        logger.warn('the upgrade anchor is not connected; a socket upgraded now may be dropped by the transport');
      }
      fn();
    },
    get ready() {
      return anchor !== undefined;
    },
    stop() {
      stopped = true;
      client?.terminate();
      if (listenSocket) uWS.us_listen_socket_close(listenSocket);
      listenSocket = false;
      app.close();
    },
  };
}

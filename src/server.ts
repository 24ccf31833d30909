// Listening on one port with uWS: the HTTP API (and later the WebSocket) share the uWS app.
// The listen socket is kept so shutdown can stop accepting before it closes connections.
import uWS from 'uWebSockets.js';
import type { HttpApp } from './http/app.js';

export interface Listener {
  readonly port: number;
  /** Stops accepting new connections; open ones are left to the caller. */
  stopAccepting(): void;
}

export function listen(app: HttpApp, host: string, port: number): Promise<Listener> {
  return new Promise((resolve, reject) => {
    const uwsApp = app.uwsApp;
    const originalListen = uwsApp.listen.bind(uwsApp) as (...args: unknown[]) => uWS.TemplatedApp;
    let listenSocket: uWS.us_listen_socket | false = false;
    // ultimate-express keeps the listen socket to itself; wrap uWS's listen once to see it.
    (uwsApp as { listen: (...args: unknown[]) => uWS.TemplatedApp }).listen = (...args: unknown[]) => {
      const callbackIndex = args.findIndex((a) => typeof a === 'function');
      const callback = args[callbackIndex] as (socket: uWS.us_listen_socket | false) => void;
      args[callbackIndex] = (socket: uWS.us_listen_socket | false) => {
        listenSocket = socket;
        callback(socket);
      };
      return originalListen(...args);
    };
    try {
      app.listen(port, host, () => {
        const socket = listenSocket;
        if (!socket) return;
        resolve({
          port: uWS.us_socket_local_port(socket),
          stopAccepting: () => uWS.us_listen_socket_close(socket),
        });
      });
    } catch (err) {
      reject(new Error(`cannot listen on ${host}:${port}: the port is in use or not permitted`, { cause: err }));
    } finally {
      (uwsApp as { listen: unknown }).listen = originalListen;
    }
  });
}

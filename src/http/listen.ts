// Listening on one port with uWS: the HTTP API and the WebSocket share the uWS app.
// The port is taken exclusively (no SO_REUSEPORT): uWS's default shares a busy port, so a second
// hub started on it would split requests with the first one behind one address. The listen socket
// is kept so shutdown can stop accepting before it closes connections.
import uWS from 'uWebSockets.js';
import type { HttpApp } from './app.js';

export interface Listener {
  readonly port: number;
  /** Stops accepting new connections; open ones are left to the caller. */
  stopAccepting(): void;
}

export class ListenError extends Error {
  constructor(
    readonly host: string,
    readonly port: number,
  ) {
    super(
      port === 0
        ? `cannot listen on ${host}: no port could be bound (is the address one of this machine's?)`
        : `port ${port} is in use on ${host} (or the address is not this machine's): stop whatever listens there or set SERVER_PORT to a free port`,
    );
    this.name = 'ListenError';
  }
}

/** uWS's LIBUS_LISTEN_EXCLUSIVE_PORT (a runtime constant; its typings declare it as an enum member that does not exist). */
const EXCLUSIVE_PORT = (uWS as unknown as { LIBUS_LISTEN_EXCLUSIVE_PORT: number }).LIBUS_LISTEN_EXCLUSIVE_PORT;

type ListenCallback = (socket: uWS.us_listen_socket | false) => void;

export function listen(app: HttpApp, host: string, port: number): Promise<Listener> {
  return new Promise((resolve, reject) => {
    const uwsApp = app.uwsApp;
    const originalListen = uwsApp.listen.bind(uwsApp) as (...args: unknown[]) => uWS.TemplatedApp;
    // ultimate-express registers its request handler in listen() and then calls uWS's listen with
    // neither the exclusive option nor a way to see the listen socket (and it throws from inside the
    // uWS callback when the port is taken). So its call to uWS is answered here instead.
    (uwsApp as { listen: unknown }).listen = (_host: string, _port: number, expressCallback: ListenCallback) =>
      originalListen(host, port, EXCLUSIVE_PORT, (socket: uWS.us_listen_socket | false) => {
        if (!socket) return reject(new ListenError(host, port));
        expressCallback(socket);
        resolve({ port: uWS.us_socket_local_port(socket), stopAccepting: () => uWS.us_listen_socket_close(socket) });
      });
    try {
      app.listen(port, host);
    } catch (err) {
      reject(err instanceof Error ? err : new Error(String(err)));
    } finally {
      (uwsApp as { listen: unknown }).listen = originalListen;
    }
  });
}

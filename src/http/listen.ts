// Listening on one port with uWS: the HTTP API and the WebSocket share the uWS app.
// The port is taken exclusively (no SO_REUSEPORT): uWS's default shares a busy port, so a second
// hub started on it would split requests with the first one behind one address. The listen socket
// is kept so shutdown can stop accepting before it closes connections.
//
// ultimate-express's own listen() registers its request handler on the uWS app and then binds with
// neither the exclusive option nor a way to see the listen socket (and throws from inside uWS's
// callback when the port is taken). So the hub registers that handler itself, as listen() does,
// and binds through the uWS app with its callback.
import uWS from 'uWebSockets.js';
import type { HttpApp } from './app.js';
import type { Request, Response } from './context.js';
import { Errors } from '../errors.js';

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

/** uWS's listen with a host and options, which its typings leave out. */
type ListenWithOptions = (host: string, port: number, options: number, callback: (socket: uWS.us_listen_socket | false) => void) => unknown;

/** The two methods of ultimate-express's app that its listen() serves every request with (untyped there). */
interface ExpressDispatch {
  handleRequest(res: uWS.HttpResponse, req: uWS.HttpRequest): { request: Request; response: Response };
  /** Runs the app's routes and middleware; false when none of them took the request. */
  _routeRequest(request: Request, response: Response): Promise<boolean>;
}

/** Serves every request that no native route took through the app's routes and middleware. */
function serveRequests(app: HttpApp): void {
  const express = app as unknown as ExpressDispatch;
  app.uwsApp.any('/*', async (res, req) => {
    const { request, response } = express.handleRequest(res, req);
    const routed = await express._routeRequest(request, response);
    // The app ends in a handler that answers everything, so this is a backstop only.
    if (!routed && !response.headersSent && !(response as Response & { aborted?: boolean }).aborted) {
      const error = Errors.routeNotFound();
      response.status(error.status).json({ error: error.message });
    }
  });
}

export function listen(app: HttpApp, host: string, port: number): Promise<Listener> {
  serveRequests(app);
  return new Promise((resolve, reject) => {
    const bind = app.uwsApp.listen.bind(app.uwsApp) as unknown as ListenWithOptions;
    bind(host, port, EXCLUSIVE_PORT, (socket) => {
      if (!socket) return reject(new ListenError(host, port));
      resolve({ port: uWS.us_socket_local_port(socket), stopAccepting: () => uWS.us_listen_socket_close(socket) });
    });
  });
}

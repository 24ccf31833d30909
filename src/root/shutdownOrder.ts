// The order in which a hub stops (see shutdown.ts): each part adds its steps by these names as it is
// built, and a stop, or a start that failed midway, runs the added ones in this order.

/** How long shutdown waits for requests in flight before it closes connections anyway. */
export const DRAIN_TIMEOUT_MS = 10_000;
/** How long shutdown waits for sockets to finish their close handshake. */
export const SOCKET_CLOSE_WAIT_MS = 2_000;

/**
 * Stop accepting → close sockets (1001) → let requests in flight finish → commit everything queued
 * → record the hub's own presence → close connections → close the store.
 */
export const SHUTDOWN_ORDER = [
  'stop accepting connections',
  'refuse WebSocket upgrades',
  // No more platform events in; answers still queued for the platform are logged as not sent.
  'stop platform events',
  // Remote A2A agents' proxies stop before the sockets close (their endpoints unbind: OFFLINE is committed below).
  'stop remote A2A agents',
  'close sockets with 1001',
  // Answers in progress end their streams ("the hub is shutting down") before the last commit.
  "end Butler's answers",
  // MCP requests still waiting (for a reply, on a subscription) end before the drain waits for them.
  'end MCP requests',
  'finish requests in flight',
  // Cluster mode: the agents only this node held go OFFLINE, and the others stop counting it.
  'leave the cluster',
  'stop pruning telemetry',
  'commit everything queued',
  'settle platform events',
  'record Butler offline',
  // Sockets were told to close (1001); their close handshakes finish before the app goes.
  'wait for socket close handshakes',
  'close the uWS app',
  // After the last commit was published; a clean stop hands the lease over at once.
  'release the lease',
  'close the cluster link',
  'stop the cork anchor',
  'stop the loop watch',
  'stop the router',
  'stop the runtime sampler',
  'stop the online sampler',
  'close the read side',
  'close the store',
] as const;

// The reference point for the hub's WebSocket figures: a bare uWebSockets.js relay with no actors,
// no store, no validation and no authentication beyond `?uid=<user id>`. It does the least the hub's
// targeted-CHAT path must do: parse the frame, give it an id, serialise it once, send it to every
// socket of the target, and ACK the sender's local_id. Run alone: `npx tsx bench/servers/rawRelay.ts --port 9001`.
import { parseArgs } from 'node:util';
import uWS from 'uWebSockets.js';

interface Peer {
  uid: number;
}

interface InFrame {
  type?: string;
  payload?: unknown;
  target_id?: number;
  local_id?: string;
}

const { values } = parseArgs({ options: { port: { type: 'string', default: '9001' }, host: { type: 'string', default: '127.0.0.1' } } });

const socketsOf = new Map<number, Set<uWS.WebSocket<Peer>>>();
const decoder = new TextDecoder();
let nextId = 1;

const app = uWS.App();
app.ws<Peer>('/ws', {
  compression: uWS.DISABLED,
  maxPayloadLength: 1 << 20,
  maxBackpressure: 64 << 20,
  idleTimeout: 60,
  sendPingsAutomatically: true,

  upgrade(res, req, context) {
    const uid = Number(req.getQuery('uid'));
    if (!Number.isSafeInteger(uid) || uid <= 0) {
      res.writeStatus('401 Unauthorized').end('uid is required');
      return;
    }
    res.upgrade<Peer>({ uid }, req.getHeader('sec-websocket-key'), req.getHeader('sec-websocket-protocol'), req.getHeader('sec-websocket-extensions'), context);
  },

  open(ws) {
    const { uid } = ws.getUserData();
    let set = socketsOf.get(uid);
    if (!set) socketsOf.set(uid, (set = new Set()));
    set.add(ws);
  },

  message(ws, message) {
    let frame: InFrame;
    try {
      frame = JSON.parse(decoder.decode(message)) as InFrame;
    } catch {
      return;
    }
    const id = nextId++;
    const timestamp = new Date().toISOString();
    const senderId = ws.getUserData().uid;
    if (typeof frame.target_id === 'number') {
      const text = JSON.stringify({
        id,
        type: frame.type,
        payload: frame.payload,
        sender_id: senderId,
        target_id: frame.target_id,
        local_id: frame.local_id,
        timestamp,
      });
      const targets = socketsOf.get(frame.target_id);
      if (targets) for (const t of targets) t.send(text, false);
    }
    if (frame.local_id !== undefined) ws.send(JSON.stringify({ type: 'ACK', local_id: frame.local_id, id, timestamp }), false);
  },

  close(ws) {
    const { uid } = ws.getUserData();
    const set = socketsOf.get(uid);
    set?.delete(ws);
    if (set?.size === 0) socketsOf.delete(uid);
  },
});
app.get('/ping', (res) => {
  res.writeHeader('Content-Type', 'application/json').end('{"message":"pong"}');
});

app.listen(values.host!, Number(values.port), (token) => {
  if (!token) {
    process.stderr.write(`rawRelay: cannot listen on ${values.host}:${values.port}\n`);
    process.exit(1);
  }
});
process.on('SIGTERM', () => {
  app.close();
  process.exit(0);
});

// The reference a team might pick instead of the hub: a Socket.IO server doing the same targeted
// relay, the way its documentation suggests (one room per user, `io.to(room).emit`), on node:http,
// WebSocket transport only, no store. Frames are the hub's JSON text, carried as the argument of one
// event ("m") each way. Run alone: `npx tsx bench/servers/socketioRelay.ts --port 9002`, clients
// connect to `http://127.0.0.1:9002/?uid=<user id>`.
import { createServer } from 'node:http';
import { parseArgs } from 'node:util';
import { Server } from 'socket.io';

interface InFrame {
  type?: string;
  payload?: unknown;
  target_id?: number;
  local_id?: string;
}

const { values } = parseArgs({ options: { port: { type: 'string', default: '9002' }, host: { type: 'string', default: '127.0.0.1' } } });

const http = createServer((req, res) => {
  // Socket.IO answers its own path; everything else is the readiness check.
  if (req.url === '/ping') res.writeHead(200, { 'content-type': 'application/json' }).end('{"message":"pong"}');
  else res.writeHead(404).end();
});
const io = new Server(http, { transports: ['websocket'], serveClient: false, perMessageDeflate: false, maxHttpBufferSize: 1 << 20 });
const room = (uid: number) => `u${uid}`;
let nextId = 1;

io.use((socket, next) => {
  const uid = Number(socket.handshake.query['uid']);
  if (!Number.isSafeInteger(uid) || uid <= 0) return next(new Error('uid is required'));
  socket.data.uid = uid;
  next();
});

io.on('connection', (socket) => {
  const uid = socket.data.uid as number;
  void socket.join(room(uid));
  socket.on('m', (text: unknown) => {
    if (typeof text !== 'string') return;
    let frame: InFrame;
    try {
      frame = JSON.parse(text) as InFrame;
    } catch {
      return;
    }
    const id = nextId++;
    const timestamp = new Date().toISOString();
    if (typeof frame.target_id === 'number') {
      const out = JSON.stringify({
        id,
        type: frame.type,
        payload: frame.payload,
        sender_id: uid,
        target_id: frame.target_id,
        local_id: frame.local_id,
        timestamp,
      });
      io.to(room(frame.target_id)).emit('m', out);
    }
    if (frame.local_id !== undefined) socket.emit('m', JSON.stringify({ type: 'ACK', local_id: frame.local_id, id, timestamp }));
  });
});

http.listen(Number(values.port), values.host, () => undefined);
http.on('error', (err) => {
  process.stderr.write(`socketioRelay: cannot listen on ${values.host}:${values.port}: ${err.message}\n`);
  process.exit(1);
});
process.on('SIGTERM', () => {
  void io.close();
  process.exit(0);
});

// Dashboard fan-out, one mechanism against the other in the same run: per-socket sends (each
// socket's frames of a round queued in JS and written with one cork per socket, as the outlet does)
// against uWS's native publish (one call per frame; the C++ side copies it to every subscriber).
// Measures the server's CPU time per delivery; clients run in a child process and count frames.
//   npx tsx bench/micro/publishVsSend.ts [sockets=200] [frames per round=50] [rounds=200]
import { fork } from 'node:child_process';
import uWS from 'uWebSockets.js';
import WebSocket from 'ws';

const arg = (i: number, fallback: number) => Number(process.argv[2 + i] ?? fallback);
const [sockets, perRound, rounds] = [arg(0, 200), arg(1, 50), arg(2, 200)];

if (process.env.PVS_CLIENT) {
  const url = process.env.PVS_CLIENT;
  let received = 0;
  let open = 0;
  for (let i = 0; i < sockets; i++) {
    const ws = new WebSocket(url, { perMessageDeflate: false });
    ws.on('open', () => ++open === sockets && process.send!({ open }));
    ws.on('message', () => received++);
  }
  process.on('message', () => process.send!({ received }));
} else {
  const socketsOpen: uWS.WebSocket<{ bytes: number; queued: string[] }>[] = [];
  const app = uWS.App().ws<{ bytes: number; queued: string[] }>('/*', {
    maxBackpressure: 2 * 1024 * 1024,
    upgrade: (res, req, ctx) =>
      res.upgrade(
        { bytes: 0, queued: [] },
        req.getHeader('sec-websocket-key'),
        req.getHeader('sec-websocket-protocol'),
        req.getHeader('sec-websocket-extensions'),
        ctx,
      ),
    open: (ws) => void socketsOpen.push(ws),
  });
  const port = await new Promise<number>((resolve) => app.listen('127.0.0.1', 0, (t) => resolve(uWS.us_socket_local_port(t))));
  const child = fork(new URL(import.meta.url).pathname, process.argv.slice(2), {
    env: { ...process.env, PVS_CLIENT: `ws://127.0.0.1:${port}/` },
    execArgv: ['--import', 'tsx'],
  });
  const ask = () =>
    new Promise<number>((resolve) => {
      child.once('message', (m: { received: number }) => resolve(m.received));
      child.send('?');
    });
  await new Promise((resolve) => child.once('message', resolve));
  const text = JSON.stringify({
    type: 'SYSTEM_LOG',
    id: 123456,
    payload: { level: 'INFO', content: 'x'.repeat(100) },
    sender_id: 7,
    timestamp: new Date().toISOString(),
  });

  const perSocket = () => {
    for (let f = 0; f < perRound; f++) for (const ws of socketsOpen) ws.getUserData().queued.push(text);
    for (const ws of socketsOpen) {
      const d = ws.getUserData();
      const texts = d.queued;
      d.queued = [];
      ws.cork(() => {
        for (const t of texts) ws.send(t, false);
      });
      d.bytes += texts.length * text.length;
      ws.getBufferedAmount();
    }
  };
  const published = () => {
    for (let f = 0; f < perRound; f++) {
      app.publish('humans', text, false);
      for (const ws of socketsOpen) ws.getUserData().bytes += text.length; // the outlet's read accounting
    }
  };
  let expected = 0;
  async function run(name: string, round: () => void) {
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    for (let r = 0; r < rounds; r++) {
      round();
      expected += perRound * sockets;
      await new Promise((resolve) => setImmediate(resolve));
    }
    const cpu = process.cpuUsage(cpu0);
    while ((await ask()) < expected) await new Promise((resolve) => setTimeout(resolve, 20));
    const wall = performance.now() - t0;
    const deliveries = rounds * perRound * sockets;
    const us = cpu.user + cpu.system;
    console.log(
      `${name.padEnd(10)} ${deliveries} deliveries: server CPU ${(us / 1000).toFixed(0)} ms = ${((us * 1000) / deliveries).toFixed(0)} ns/delivery (${Math.round(deliveries / (us / 1e6)).toLocaleString('en-US')} deliveries per CPU-second), all received after ${wall.toFixed(0)} ms`,
    );
    return us;
  }
  for (const ws of socketsOpen) ws.subscribe('humans');
  const a: number[] = [];
  const b: number[] = [];
  for (let k = 0; k < 3; k++) {
    a.push(await run('per-socket', perSocket));
    b.push(await run('publish', published));
  }
  const median = (xs: number[]) => xs.sort((x, y) => x - y)[1]!;
  console.log(`publish / per-socket server CPU per delivery (median of 3): ${(median(b) / median(a)).toFixed(2)}`);
  child.kill();
  app.close();
}

// Heap per connection actor (+ its JS side objects), measured with gc() and heapUsed deltas.
import { createActor, fromPromise } from 'xstate';
import { connectionMachine } from '../../src/actors/connection.ts';
import { routerMachine } from '../../src/actors/router.ts';
import { TokenBucket } from '../../src/ws/tokenBucket.ts';
const N = Number(process.argv[2] ?? 20000);
const router = createActor(routerMachine, { input: { presence: { online() {}, offline() {} } as any } });
router.start();
const machine = connectionMachine.provide({
  actors: {
    authenticate: fromPromise(async () => ({ user: { id: Math.floor(Math.random() * 1e6), username: 'x', role: 'AGENT' as const } })),
    replay: fromPromise(async () => 0),
  },
});
const gc = (globalThis as any).gc as () => void;
const heap = () => { gc(); gc(); return process.memoryUsage().heapUsed; };
const keep: any[] = [];
const h0 = heap();
const mode = process.argv[3] ?? 'actor';
for (let i = 0; i < N; i++) {
  const meters = { rate: new TokenBucket(100, 100), badFrames: new TokenBucket(1, 20), rateStrikes: new TokenBucket(1, 20) };
  if (mode === 'meters') { keep.push(meters); continue; }
  const a = createActor(machine, { parent: router as any, input }); input.credential = ""; input.upgrade = { accept() {}, refuse() {} };
  a.start();
  keep.push(a);
}
await new Promise((r) => setTimeout(r, 200));
const h1 = heap();
const outlet = (i: number) => ({ user: { id: i, username: 'x', role: 'AGENT' }, inHub: false, deliver() {}, close() {}, endReplay() {}, end() {} });
if (mode === 'actor') for (let i = 0; i < N; i++) keep[i].send({ type: 'OPENED', outlet: outlet(i) });
await new Promise((r) => setTimeout(r, 200));
const h2 = heap();
console.log(mode, 'N', N, 'bytes/actor after auth', ((h1 - h0) / N).toFixed(0), 'after open', ((h2 - h0) / N).toFixed(0), keep[0].getSnapshot?.().value);

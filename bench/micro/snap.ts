import v8 from 'node:v8';
import { createActor, fromPromise } from 'xstate';
import { connectionMachine } from '../../src/actors/connection.ts';
import { routerMachine } from '../../src/actors/router.ts';
import { TokenBucket } from '../../src/ws/tokenBucket.ts';
const N = Number(process.argv[2]);
const router = createActor(routerMachine, { input: { presence: { online() {}, offline() {} } as any } });
router.start();
const machine = connectionMachine.provide({ actors: {
  authenticate: fromPromise(async () => ({ user: { id: Math.floor(Math.random() * 1e6), username: 'x', role: 'AGENT' as const } })),
  replay: fromPromise(async () => 0) } });
const keep: any[] = [];
for (let i = 0; i < N; i++) {
  const meters = { rate: new TokenBucket(100, 100), badFrames: new TokenBucket(1, 20), rateStrikes: new TokenBucket(1, 20) };
  const a = createActor(machine, { parent: router as any, input: { key: i, meters, credential: 'tok' + i, router, upgrade: { accept() {}, refuse() {} } } });
  a.start(); keep.push(a);
}
await new Promise((r) => setTimeout(r, 200));
for (let i = 0; i < N; i++) keep[i].send({ type: 'OPENED', outlet: { user: { id: i, username: 'x', role: 'AGENT' }, inHub: false, deliver() {}, close() {}, endReplay() {}, end() {} } });
await new Promise((r) => setTimeout(r, 200));
v8.writeHeapSnapshot(process.argv[3]);

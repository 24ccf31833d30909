// Request/response over Node's IPC channel between the orchestrator and its child processes.
// Every call carries a timeout, so a wedged child fails the phase instead of hanging the run.
// The channel is JSON, which turns NaN (the percentile of no samples) into null: non-finite numbers
// travel as markers and come back as themselves, so a figure typed `number` is still one on arrival.
import type { ChildProcess } from 'node:child_process';

const NON_FINITE = '$nonFinite';
const isPlain = (v: object) => Array.isArray(v) || Object.getPrototypeOf(v) === Object.prototype || Object.getPrototypeOf(v) === null;

/** A value as it is sent: NaN and ±Infinity, wherever they sit in arrays and plain objects, as markers. */
export function toWire(value: unknown): unknown {
  if (typeof value === 'number') return Number.isFinite(value) ? value : { [NON_FINITE]: String(value) };
  if (value === null || typeof value !== 'object' || !isPlain(value)) return value;
  if (Array.isArray(value)) return value.map(toWire);
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, toWire(v)]));
}

/** The value `toWire` was given, from what arrived. */
export function fromWire(value: unknown): unknown {
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map(fromWire);
  const entries = Object.entries(value);
  if (entries.length === 1 && entries[0]![0] === NON_FINITE) return Number(entries[0]![1]);
  return Object.fromEntries(entries.map(([k, v]) => [k, fromWire(v)]));
}

interface Request {
  id: number;
  method: string;
  params: unknown;
}
type Response = { id: number; ok: true; result: unknown } | { id: number; ok: false; error: string };

export type Handlers = Record<string, (params: never) => unknown>;

/** Child side: answers each request with its handler's (awaited) result. Exits when the parent goes. */
export function serve(handlers: Handlers): void {
  if (!process.send) throw new Error('this script is a bench child: start it from bench/run.ts (it needs an IPC channel)');
  process.on('message', (raw) => {
    const req = raw as Request;
    const handler = handlers[req.method] as ((params: unknown) => unknown) | undefined;
    const reply = (res: Response) => process.send?.(res);
    if (!handler) return reply({ id: req.id, ok: false, error: `unknown method ${req.method}` });
    Promise.resolve()
      .then(() => handler(fromWire(req.params)))
      .then(
        (result) => reply({ id: req.id, ok: true, result: toWire(result) }),
        (err: unknown) => reply({ id: req.id, ok: false, error: err instanceof Error ? (err.stack ?? err.message) : String(err) }),
      );
  });
  // An orphaned load generator would keep thousands of sockets open: leave with the parent.
  process.on('disconnect', () => process.exit(0));
}

/** Parent side: typed calls into one child. */
export class RpcClient {
  private nextId = 1;
  private readonly waiting = new Map<number, { resolve(v: unknown): void; reject(e: Error): void }>();

  constructor(
    private readonly child: ChildProcess,
    private readonly name: string,
  ) {
    child.on('message', (raw) => {
      const res = raw as Response;
      const w = this.waiting.get(res.id);
      if (!w) return;
      this.waiting.delete(res.id);
      if (res.ok) w.resolve(fromWire(res.result));
      else w.reject(new Error(`${this.name}: ${res.error}`));
    });
    child.on('exit', (code, signal) => {
      for (const w of this.waiting.values()) w.reject(new Error(`${this.name} exited (code ${code}, signal ${signal}) during a call`));
      this.waiting.clear();
    });
  }

  call<R>(method: string, params: unknown, timeoutMs: number): Promise<R> {
    const id = this.nextId++;
    return new Promise<R>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiting.delete(id);
        reject(new Error(`${this.name}.${method} timed out after ${timeoutMs} ms`));
      }, timeoutMs);
      this.waiting.set(id, {
        resolve: (v) => {
          clearTimeout(timer);
          resolve(v as R);
        },
        reject: (e) => {
          clearTimeout(timer);
          reject(e);
        },
      });
      // With a callback a send on a closed channel (the child has exited) fails this call; without one
      // the child process emits 'error', which nothing listens for, and the orchestrator dies on it.
      this.child.send({ id, method, params: toWire(params) } satisfies Request, (err) => {
        if (!err || !this.waiting.has(id)) return;
        this.waiting.get(id)!.reject(new Error(`${this.name}.${method} could not be sent: ${err.message}`));
        this.waiting.delete(id);
      });
    });
  }
}

// Load generator child: HTTP requests against the hub with autocannon (keep-alive connections, each
// with one request in flight). For posted messages a dashboard socket in this process checks that
// each one was delivered exactly once.
import autocannon from 'autocannon';
import { serve } from '../lib/rpc.js';
import { closeAll, now, openSocket, type Conn } from './common.js';
import type { HttpRunParams, HttpRunResult } from './protocol.js';

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Sequence numbers of posted messages, and which of them the hub answered with 201. */
class Posted {
  next = 0;
  readonly ok = new Set<number>();
}

/** The request of one kind, with a fresh body per request where it needs one. */
function requestOf(p: HttpRunParams, posted: Posted): autocannon.Request {
  const json = { 'content-type': 'application/json' };
  const auth = p.bearer ? { authorization: `Bearer ${p.bearer}` } : {};
  switch (p.request) {
    case 'login': {
      const names = p.usernames ?? [];
      let next = 0;
      return {
        method: 'POST',
        path: '/api/auth/login',
        headers: json,
        // The names in turn, one per connection: the requests in flight are the last few sent, so
        // they name different members.
        setupRequest: (req) => ({ ...req, body: JSON.stringify({ username: names[next++ % names.length], password: p.password }) }),
      };
    }
    case 'agents':
      return { method: 'GET', path: `/api/users/agents${p.query ?? ''}`, headers: auth };
    case 'message':
      return {
        method: 'POST',
        path: `/api/messages${p.query ?? ''}`,
        headers: { ...json, ...auth },
        // A unique content per request, so the dashboard socket can tell each one apart. The context
        // is the connection's, which has one request in flight, so the answer finds its sequence.
        setupRequest: (req, context) => {
          const seq = posted.next++;
          (context as { seq?: number }).seq = seq;
          return { ...req, body: JSON.stringify({ level: 'INFO', content: `${p.tag}.${seq}` }) };
        },
        onResponse: (status, _body, context) => {
          if (status === 201) posted.ok.add((context as { seq: number }).seq);
        },
      };
  }
}

/** Counts SYSTEM_LOG deliveries of this run's contents on one dashboard socket, by sequence. */
class Watch {
  counts = new Uint8Array(1 << 16);
  unique = 0;
  duplicates = 0;
  strays = 0;
  constructor(
    readonly conn: Conn,
    private readonly prefix: string,
  ) {
    conn.onText((text) => this.onText(text));
  }
  private onText(text: string): void {
    const frame = JSON.parse(text) as { type: string; payload?: { content?: unknown } };
    const content = frame.payload?.content;
    if (frame.type !== 'SYSTEM_LOG' || typeof content !== 'string' || !content.startsWith(this.prefix)) return;
    const seq = Number(content.slice(this.prefix.length));
    if (!Number.isInteger(seq) || seq < 0) {
      this.strays++;
      return;
    }
    if (seq >= this.counts.length) {
      const bigger = new Uint8Array(Math.max(seq + 1, this.counts.length * 2));
      bigger.set(this.counts);
      this.counts = bigger;
    }
    if (this.counts[seq] === 0) this.unique++;
    else this.duplicates++;
    if (this.counts[seq]! < 255) this.counts[seq]!++;
  }
}

async function run(p: HttpRunParams): Promise<HttpRunResult> {
  const posted = new Posted();
  const watch = p.watchUrl ? new Watch(await openSocket(p.watchUrl), `${p.tag}.`) : undefined;
  const samples: string[] = [];
  try {
    let answered = 0;
    const result = await new Promise<autocannon.Result>((resolve, reject) => {
      const instance = autocannon(
        { url: p.baseUrl, connections: p.connections, duration: p.durationMs / 1000, timeout: 10, requests: [requestOf(p, posted)] },
        (err, done) => (err ? reject(err instanceof Error ? err : new Error(String(err))) : resolve(done)),
      );
      // Bounded in count as well as time.
      instance.on('response', () => {
        if (++answered === p.maxRequests) instance.stop();
      });
    });
    const ok = result['2xx'];
    if (result.non2xx > 0) samples.push(`status codes: ${JSON.stringify(result.statusCodeStats)}`);
    let delivered: number | undefined;
    let duplicates: number | undefined;
    let missing: number | undefined;
    if (watch) {
      // Every stored message goes to the dashboard after its commit; wait for the last ones.
      const seen = () => [...posted.ok].filter((seq) => (watch.counts[seq] ?? 0) > 0).length;
      const deadline = now() + p.drainMs;
      while (seen() < posted.ok.size && now() < deadline) await sleep(50);
      await sleep(200);
      delivered = watch.unique;
      duplicates = watch.duplicates + watch.strays;
      missing = posted.ok.size - seen();
      for (const seq of posted.ok) {
        if (samples.length >= 5) break;
        if ((watch.counts[seq] ?? 0) === 0) samples.push(`message ${seq} was answered 201 but never reached the dashboard`);
      }
    }
    const requests = ok + result.non2xx;
    return {
      requests,
      ok,
      non2xx: result.non2xx,
      errors: result.errors,
      timeouts: result.timeouts,
      requestsPerSecond: requests / result.duration,
      latency: { p50: result.latency.p50, p99: result.latency.p99, p999: result.latency.p99_9, max: result.latency.max, mean: result.latency.mean },
      durationMs: result.duration * 1000,
      delivered,
      duplicates,
      missing,
      samples,
    };
  } finally {
    if (watch) await closeAll([watch.conn]);
  }
}

serve({
  hello: () => ({ pid: process.pid }),
  run,
});

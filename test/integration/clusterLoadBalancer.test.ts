// The example load balancer (deploy/haproxy.cfg) in front of two hub processes: logins and
// WebSocket upgrades pass through it with no sticky sessions, sockets spread over the nodes, and
// its /api/ready health check takes a dead node out of rotation and a restarted one back. A node
// killed under a stream of connections costs none of the new ones (they are sent to the live node),
// and what the balancer answers itself is JSON in the hub's error shape.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { startCluster, type TestCluster } from '../helpers/cluster.js';
import { closedPort, reservePorts } from '../helpers/ports.js';
import { apiClient } from '../helpers/http.js';
import { connectWs } from '../helpers/wsClient.js';
import WebSocket from 'ws';

const CONFIG = fileURLToPath(new URL('../../deploy/haproxy.cfg', import.meta.url));

/** HAProxy in the foreground with the example configuration; its log lines (stdout) captured. */
async function startHaproxy(env: Record<string, string>) {
  const installed = spawnSync('haproxy', ['-v'], { encoding: 'utf8' });
  if (installed.error || installed.status !== 0) {
    throw new Error('haproxy is not installed: the load-balancer test needs it (apt-get install -y haproxy)');
  }
  const child: ChildProcess = spawn('haproxy', ['-db', '-f', CONFIG], { env: { PATH: process.env['PATH'] ?? '', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  const lines: string[] = [];
  const waiters: Array<{ pattern: RegExp; resolve: (line: string) => void }> = [];
  const onLine = (line: string) => {
    lines.push(line);
    for (const w of [...waiters]) {
      if (w.pattern.test(line)) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve(line);
      }
    }
  };
  createInterface({ input: child.stdout! }).on('line', onLine);
  createInterface({ input: child.stderr! }).on('line', onLine);
  const exited = once(child, 'exit');
  return {
    lines,
    /** The first log line (from `since`, an index into `lines`) matching `pattern`. */
    waitFor(pattern: RegExp, since = 0): Promise<string> {
      const seen = lines.slice(since).find((l) => pattern.test(l));
      if (seen) return Promise.resolve(seen);
      return new Promise<string>((resolve, reject) => {
        waiters.push({ pattern, resolve });
        void exited.then(() => reject(new Error(`haproxy exited before logging ${pattern}: ${lines.join('\n')}`)));
      });
    },
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}

/** One new connection through the balancer and what answered it. */
interface Attempt {
  kind: 'socket' | 'read';
  /** ms since the test's clock started. */
  startedAt: number;
  ok: boolean;
  status: number;
  contentType: string;
  body: string;
}

/** Opens a socket and closes it at once: ok on 101; a refusal keeps its status and body. */
function socketAttempt(url: string, clock: () => number): Promise<Attempt> {
  const startedAt = clock();
  return new Promise((resolve) => {
    const ws = new WebSocket(url);
    const done = (a: Omit<Attempt, 'kind' | 'startedAt'>) => resolve({ kind: 'socket', startedAt, ...a });
    ws.once('open', () => {
      ws.terminate();
      done({ ok: true, status: 101, contentType: '', body: '' });
    });
    ws.once('unexpected-response', (_req, res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        ws.terminate();
        done({ ok: false, status: res.statusCode ?? 0, contentType: String(res.headers['content-type'] ?? ''), body: Buffer.concat(chunks).toString('utf8') });
      });
    });
    ws.once('error', (err) => done({ ok: false, status: 0, contentType: '', body: err.message }));
  });
}

async function readAttempt(url: string, token: string, clock: () => number): Promise<Attempt> {
  const startedAt = clock();
  try {
    const res = await fetch(url, { headers: { Authorization: `Bearer ${token}` } });
    const body = await res.text();
    return { kind: 'read', startedAt, ok: res.status === 200, status: res.status, contentType: res.headers.get('content-type') ?? '', body };
  } catch (err) {
    return { kind: 'read', startedAt, ok: false, status: 0, contentType: '', body: (err as Error).message };
  }
}

describe.skipIf(!inject('pgUrl'))('HAProxy in front of the cluster [postgres]', () => {
  let cluster: TestCluster;
  let lb: Awaited<ReturnType<typeof startHaproxy>>;
  let lbUrl: string;
  beforeAll(async () => {
    cluster = await startCluster({ nodes: 2 });
    const [n1, n2] = cluster.nodes;
    const lbPort = await reservePorts();
    // The third server line of the example points at a port nobody listens on: its health check fails.
    const nobody = await closedPort();
    lb = await startHaproxy({
      HUB_LB_BIND: `127.0.0.1:${lbPort}`,
      HUB_NODE1: `127.0.0.1:${n1!.port}`,
      HUB_NODE2: `127.0.0.1:${n2!.port}`,
      HUB_NODE3: `127.0.0.1:${nobody}`,
    });
    lbUrl = `http://127.0.0.1:${lbPort}`;
    // Servers start in rotation; wait for the checks to take the missing one out.
    await lb.waitFor(/Server hub_nodes\/n3 is DOWN/);
    // ...and only that one: the nodes pass the check.
    expect(lb.lines.filter((l) => /Server hub_nodes\/n[12] is DOWN/.test(l))).toEqual([]);
  }, 90_000);
  afterAll(async () => {
    await lb?.stop();
    await cluster?.stop();
  }, 30_000);

  it('passes logins and WebSocket upgrades through, spreading sockets over both nodes', async () => {
    const api = apiClient(lbUrl);
    for (const node of cluster.nodes) expect((await node.api.get('/api/ready')).status).toBe(200);
    for (let i = 0; i < 4; i += 1) {
      const login = await api.post('/api/auth/login', { username: 'admin', password: 'admin-password' });
      expect(login.status).toBe(200);
      expect((await api.get('/api/ready')).status).toBe(200);
    }

    const agent = await cluster.createAgent();
    const mark = lb.lines.length;
    // leastconn: the first socket goes to either node, the second to the other.
    const sockets = [await connectWs(lbUrl, agent.api_token), await connectWs(lbUrl, agent.api_token)];
    for (const [i, ws] of sockets.entries()) {
      ws.send({ type: 'CHAT', target_id: 1, payload: `through the balancer ${i}`, local_id: `lb-${i}` });
      expect(await ws.next('ACK')).toMatchObject({ type: 'ACK', local_id: `lb-${i}`, id: expect.any(Number) });
    }
    await Promise.all(sockets.map((ws) => ws.close()));
    // HAProxy logs a tunnelled request when it ends, with the server that carried it.
    const served = await Promise.all([
      lb.waitFor(/hub_nodes\/n1 .*"GET \/api\/ws HTTP\/1.1"/, mark),
      lb.waitFor(/hub_nodes\/n2 .*"GET \/api\/ws HTTP\/1.1"/, mark),
    ]);
    for (const line of served) expect(line).toMatch(/ 101 /);
    // The token in the socket's URL never reaches the balancer's log.
    expect(lb.lines.filter((l) => l.includes(agent.api_token))).toEqual([]);
  });

  it('delivers between two clients the balancer put on different nodes', async () => {
    const agent = await cluster.createAgent();
    const member = await cluster.createMember();
    const mark = lb.lines.length;
    // leastconn with nothing else open: the second socket goes to the other node.
    const human = await connectWs(lbUrl, member.token);
    const bot = await connectWs(lbUrl, agent.api_token);
    bot.send({ type: 'CHAT', target_id: member.id, payload: 'across the balancer', local_id: 'lb-x' });
    const ack = await bot.next('ACK');
    const got = await human.nextWhere((f) => f.type === 'CHAT' && f.payload === 'across the balancer', 'the chat');
    expect(got.id).toBe(ack.id);
    await Promise.all([human.close(), bot.close()]);
    const served = await Promise.all([
      lb.waitFor(/hub_nodes\/n1 .*"GET \/api\/ws HTTP\/1.1"/, mark),
      lb.waitFor(/hub_nodes\/n2 .*"GET \/api\/ws HTTP\/1.1"/, mark),
    ]);
    expect(served).toHaveLength(2);
  });

  it('takes a killed node out of rotation and a restarted one back', async () => {
    const api = apiClient(lbUrl);
    const n2 = cluster.nodes[1]!;
    const mark = lb.lines.length;
    await n2.kill('SIGKILL');
    await lb.waitFor(/Server hub_nodes\/n2 is DOWN/, mark);
    for (let i = 0; i < 4; i += 1) expect((await api.post('/api/auth/login', { username: 'admin', password: 'admin-password' })).status).toBe(200);

    await n2.restart();
    await lb.waitFor(/Server hub_nodes\/n2 is UP/, mark);
    const agent = await cluster.createAgent();
    const sockets = [await connectWs(lbUrl, agent.api_token), await connectWs(lbUrl, agent.api_token)];
    await Promise.all(sockets.map((ws) => ws.close()));
  }, 60_000);

  it('sends every new connection to a live node from the moment a node is killed under a stream of connects', async () => {
    const n2 = cluster.nodes[1]!;
    const agent = await cluster.createAgent();
    const member = await cluster.createMember();
    const socketUrl = `${lbUrl.replace(/^http/, 'ws')}/api/ws?token=${agent.api_token}`;
    const readUrl = `${lbUrl}/api/users/agents?limit=5`;
    const t0 = performance.now();
    const clock = () => performance.now() - t0;
    const attempts: Attempt[] = [];
    let streaming = true;
    // Four clients connecting and reading back to back, as agents and dashboards would.
    const worker = async (i: number) => {
      for (let n = 0; streaming; n += 1) {
        attempts.push(n % 2 === i % 2 ? await socketAttempt(socketUrl, clock) : await readAttempt(readUrl, member.token, clock));
      }
    };
    const workers = [0, 1, 2, 3].map(worker);
    const mark = lb.lines.length;
    // Both nodes carry the stream before the kill.
    await Promise.all([lb.waitFor(/hub_nodes\/n1 .*"GET \/api\/(ws|users)/, mark), lb.waitFor(/hub_nodes\/n2 .*"GET \/api\/(ws|users)/, mark)]);
    const killedAt = clock();
    await n2.kill('SIGKILL');
    await lb.waitFor(/Server hub_nodes\/n2 is DOWN/, mark);
    const downAt = clock();
    // Past the ~3-4 s the old configuration (checks every 2 s, two failures) kept a dead node in rotation.
    const endAt = killedAt + 4_000;
    await new Promise<void>((resolve) => {
      const check = setInterval(() => {
        if (clock() >= endAt) {
          clearInterval(check);
          resolve();
        }
      }, 50);
    });
    streaming = false;
    await Promise.all(workers);

    const after = attempts.filter((a) => a.startedAt >= killedAt);
    const failed = after.filter((a) => !a.ok);
    const describe = (a: Attempt) => `${a.kind} at +${Math.round(a.startedAt - killedAt)} ms: ${a.status} ${a.contentType} ${a.body.slice(0, 80)}`;
    const lastFailure = failed.length === 0 ? 0 : Math.max(...failed.map((a) => a.startedAt - killedAt));
    console.info(
      `node killed under ${after.length} connects/reads in 4 s: ${failed.length} failed, last failure ${Math.round(lastFailure)} ms after the kill; marked DOWN ${Math.round(downAt - killedAt)} ms after`,
    );
    expect(after.filter((a) => a.ok).length).toBeGreaterThan(40);
    // Anything the balancer answered itself is JSON, never its HTML page.
    expect(failed.filter((a) => a.status !== 0 && !/application\/json/.test(a.contentType)).map(describe)).toEqual([]);
    // Not one connection started after the kill fails: those the dead node refuses go to the live one.
    // (The old configuration answered HAProxy's HTML 503 to some in the first 100 ms.)
    expect(failed.map(describe)).toEqual([]);
    // The node is out of rotation within 1.5 s: the first refusal marks it down, the checks confirm
    // (the old configuration took 2.6-4 s).
    expect(downAt - killedAt).toBeLessThan(1_500);

    await n2.restart();
    await lb.waitFor(/Server hub_nodes\/n2 is UP/, mark);
  }, 90_000);

  it("answers JSON in the hub's error shape when no node is in service", async () => {
    const [a, b, c] = await Promise.all([closedPort(), closedPort(), closedPort()]);
    const port = await reservePorts();
    const empty = await startHaproxy({
      HUB_LB_BIND: `127.0.0.1:${port}`,
      HUB_NODE1: `127.0.0.1:${a}`,
      HUB_NODE2: `127.0.0.1:${b}`,
      HUB_NODE3: `127.0.0.1:${c}`,
    });
    try {
      await Promise.all(['n1', 'n2', 'n3'].map((n) => empty.waitFor(new RegExp(`Server hub_nodes/${n} is DOWN`))));
      const res = await fetch(`http://127.0.0.1:${port}/api/ready`);
      expect(res.status).toBe(503);
      expect(res.headers.get('content-type')).toMatch(/^application\/json/);
      expect(res.headers.get('retry-after')).toBe('1');
      expect(await res.json()).toEqual({ error: 'no hub node is available behind the load balancer; try again shortly' });
      const upgrade = await socketAttempt(`ws://127.0.0.1:${port}/api/ws?token=x`, () => 0);
      expect(upgrade).toMatchObject({ ok: false, status: 503, contentType: 'application/json' });
      expect(JSON.parse(upgrade.body)).toEqual({ error: expect.stringMatching(/^no hub node is available/) });
    } finally {
      await empty.stop();
    }
  }, 30_000);
});

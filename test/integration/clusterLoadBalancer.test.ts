// The example load balancer (deploy/haproxy.cfg) in front of two hub processes: logins and
// WebSocket upgrades pass through it with no sticky sessions, sockets spread over the nodes, and
// its /api/ready health check takes a dead node out of rotation and a restarted one back.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { startCluster, type TestCluster } from '../helpers/cluster.js';
import { closedPort, reservePorts } from '../helpers/ports.js';
import { apiClient } from '../helpers/http.js';
import { connectWs } from '../helpers/wsClient.js';

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
});

// `npm run cluster`: starts N nodes on consecutive ports against one database and Redis, prefixes
// each node's lines with its id, and stops them all cleanly on SIGTERM.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createRequire } from 'node:module';
import { createInterface } from 'node:readline';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../helpers/db.js';
import { SHARED_REDIS_URL } from '../helpers/cluster.js';
import { reservePorts } from '../helpers/ports.js';

const SCRIPT = fileURLToPath(new URL('../../scripts/cluster.ts', import.meta.url));
const TSX = pathToFileURL(createRequire(SCRIPT).resolve('tsx/esm')).href;

describe.skipIf(!inject('pgUrl'))('npm run cluster [postgres]', () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase('postgres');
  });
  afterAll(async () => {
    await database?.drop();
  });

  it('starts two nodes on consecutive ports and stops them on SIGTERM', async () => {
    const port = await reservePorts(2);
    const child = spawn(process.execPath, ['--import', TSX, SCRIPT, '--nodes', '2', '--port', String(port)], {
      env: {
        PATH: process.env['PATH'] ?? '',
        ...database.env,
        REDIS_URL: SHARED_REDIS_URL,
        CLUSTER_NAME: `script_${process.pid}_${port}`,
        JWT_SECRET: 'a-secret-that-is-long-enough-for-the-hub-0123456789',
        INITIAL_ADMIN_USER: 'admin',
        INITIAL_ADMIN_PASS: 'admin-password',
        WEB_DIR: '',
      },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const exited = once(child, 'exit');
    const lines: string[] = [];
    const reader = createInterface({ input: child.stdout! });
    try {
      const ready = new Promise<void>((resolve, reject) => {
        reader.on('line', (line) => {
          lines.push(line);
          if (line.startsWith('cluster 2 nodes ready:')) resolve();
        });
        void exited.then(() => reject(new Error(`the script exited before the nodes were ready:\n${lines.join('\n')}`)));
      });
      await ready;
      expect(lines.filter((l) => l.startsWith('cluster '))).toEqual([
        expect.stringMatching(new RegExp(`^cluster 2 nodes on ports ${port}–${port + 1}, PostgreSQL postgres://\\*\\*\\*@`)),
        `cluster starting n1 on http://localhost:${port}…`,
        expect.stringMatching(/^cluster n1 ready \(\d+\.\d s\)$/),
        `cluster starting n2 on http://localhost:${port + 1}…`,
        expect.stringMatching(/^cluster n2 ready \(\d+\.\d s\)$/),
        `cluster 2 nodes ready: http://localhost:${port} http://localhost:${port + 1} — Ctrl-C stops them all`,
      ]);
      for (const p of [port, port + 1]) expect((await fetch(`http://127.0.0.1:${p}/api/ready`)).status).toBe(200);
      // Each node's JSON lines, prefixed with its id.
      for (const id of ['n1', 'n2']) expect(lines.some((l) => l.startsWith(`${id}   {`) && l.includes('"msg":"hub listening on'))).toBe(true);

      child.kill('SIGTERM');
      const [code] = (await exited) as [number | null];
      expect(code).toBe(0);
      expect(lines.filter((l) => /^n[12] .*"msg":"stopped cleanly"/.test(l))).toHaveLength(2);
      expect(lines.at(-1)).toBe('cluster all nodes stopped');
    } finally {
      child.kill('SIGKILL');
    }
  }, 90_000);
});

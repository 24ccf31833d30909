// A reconnect storm's credential checks on PostgreSQL, old and new in one run: LOOKUPS agents'
// token lookups asked at once (what a node sees when the agents of a dead node arrive together),
// through the users repository on the hub's own pool (10 connections, DB_CONNECT_TIMEOUT 5 s).
// "each": one query per lookup, as before; "batched": lookups asked while queries are in flight
// wait and go as one query (repositories/batchedLookup.ts). Failed = the pool timed out (the hub
// answers that upgrade 503).
//   npx tsx bench/micro/tokenLookups.ts   (AGENTS=20000 LOOKUPS=5000 VARIANTS=each,batched,each,batched)
import pg from 'pg';
import { createTokenVault } from '../../src/auth/agentTokens.js';
import { openStore } from '../../src/store/db.js';
import { migrate } from '../../src/store/migrate.js';
import { createUsersRepo } from '../../src/store/repositories/users.js';
import { insertAgents } from '../lib/bulkAgents.js';

const AGENTS = Number(process.env.AGENTS ?? 20_000);
const LOOKUPS = Number(process.env.LOOKUPS ?? 5_000);
const PG_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const variants = (process.env.VARIANTS ?? 'each,batched,each,batched').split(',');
const SECRET = 'bench-token-lookups-secret-0123456789';

const admin = new pg.Client({ connectionString: PG_URL });
await admin.connect();
const database = `bench_lookups_${process.pid}`;
await admin.query(`CREATE DATABASE ${database}`);
const url = new URL(PG_URL);
url.pathname = `/${database}`;
try {
  const store = openStore({ driver: 'postgres', url: url.toString() });
  await migrate(store);
  const agents = await insertAgents(url.toString(), SECRET, 'agent', AGENTS);
  const vault = createTokenVault(SECRET);
  for (const [round, variant] of variants.entries()) {
    const users = createUsersRepo(store.db, { batchTokenLookups: variant === 'batched' });
    const asked = agents.slice((round * LOOKUPS) % AGENTS).slice(0, LOOKUPS);
    const lookups = asked.map((a) => vault.lookup(a.token));
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    const latencies: number[] = [];
    const outcomes = await Promise.all(
      lookups.map((lookup, i) =>
        users.findByTokenLookup(lookup).then(
          (user) => {
            latencies.push(performance.now() - t0);
            return user?.id === asked[i]!.id ? 'found' : 'wrong';
          },
          () => 'failed',
        ),
      ),
    );
    const ms = performance.now() - t0;
    const cpu = process.cpuUsage(cpu0);
    latencies.sort((a, b) => a - b);
    const count = (k: string) => outcomes.filter((o) => o === k).length;
    console.log(
      `${variant.padEnd(8)} ${LOOKUPS} lookups at once: all answered in ${ms.toFixed(0)} ms, found ${count('found')}, wrong ${count('wrong')}, ` +
        `failed (pool timeout) ${count('failed')}, answered p50 ${latencies[Math.floor(latencies.length / 2)]?.toFixed(0) ?? '–'} ms p99 ${latencies[Math.floor(latencies.length * 0.99)]?.toFixed(0) ?? '–'} ms, ` +
        `this process's CPU ${((cpu.user + cpu.system) / 1000 / (LOOKUPS / 1000)).toFixed(1)} ms per 1,000 lookups`,
    );
  }
  await store.close();
} finally {
  await admin.query(`DROP DATABASE ${database} WITH (FORCE)`);
  await admin.end();
}

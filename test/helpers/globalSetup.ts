// Decides once per run whether the PostgreSQL half of the suite can run, and says why not.
// TEST_DATABASE_URL names a database the tests may create databases from; without it the local
// default is tried. In CI an unreachable PostgreSQL is a failure, not a skip.
import pg from 'pg';
import type { TestProject } from 'vitest/node';

const LOCAL_DEFAULT = 'postgres://postgres@127.0.0.1:5432/test';

declare module 'vitest' {
  export interface ProvidedContext {
    pgUrl: string | null;
    pgSkipReason: string;
  }
}

export default async function setup(project: TestProject): Promise<void> {
  const url = process.env.TEST_DATABASE_URL || LOCAL_DEFAULT;
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3000 });
  try {
    await client.connect();
    await client.query('SELECT 1');
    project.provide('pgUrl', url);
    project.provide('pgSkipReason', '');
  } catch (err) {
    const reason = `PostgreSQL tests skipped: cannot connect to ${url.replace(/\/\/[^@]*@/, '//***@')} (${(err as Error).message}); set TEST_DATABASE_URL to run them`;
    if (process.env.CI === 'true' && process.env.TEST_DATABASE_URL) throw new Error(reason.replace('skipped', 'cannot run in CI'));
    process.stderr.write(`\n${reason}\n\n`);
    project.provide('pgUrl', null);
    project.provide('pgSkipReason', reason);
  } finally {
    await client.end().catch(() => undefined);
  }
}

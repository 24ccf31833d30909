// One fresh database per test hub: a temp SQLite file, or a new PostgreSQL database that is
// dropped afterwards.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { describe, inject } from 'vitest';

export type Driver = 'sqlite' | 'postgres';
export const DRIVERS: readonly Driver[] = ['sqlite', 'postgres'];

export interface TestDatabase {
  env: Record<string, string>;
  drop(): Promise<void>;
}

/** Runs `body` once per store driver; the PostgreSQL run is skipped (with the reason) when unavailable. */
export function describeEachDriver(name: string, body: (driver: Driver) => void): void {
  for (const driver of DRIVERS) {
    const skip = driver === 'postgres' && !inject('pgUrl');
    describe.skipIf(skip)(`${name} [${driver}]`, () => body(driver));
  }
}

export async function createTestDatabase(driver: Driver): Promise<TestDatabase> {
  if (driver === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'hub-test-'));
    return {
      env: { DB_DRIVER: 'sqlite', DB_PATH: join(dir, 'hub.db') },
      async drop() {
        rmSync(dir, { recursive: true, force: true });
      },
    };
  }
  const adminUrl = inject('pgUrl');
  if (!adminUrl) throw new Error(inject('pgSkipReason'));
  const name = `hub_test_${process.pid}_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    env: { DB_DRIVER: 'postgres', DATABASE_URL: url.toString() },
    async drop() {
      const client = new pg.Client({ connectionString: adminUrl });
      await client.connect();
      try {
        await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      } finally {
        await client.end();
      }
    },
  };
}

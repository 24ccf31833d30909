// A fresh store for each hub the bench starts: a SQLite file in the run's folder, or a scratch
// PostgreSQL database created for it and dropped when the run ends (also when it fails).
import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';

export interface ScratchStore {
  /** Where it lives, for the log (the PostgreSQL URL without its password). */
  describe: string;
  /** The hub's DB_* settings for it. */
  env: Record<string, string>;
}

export interface StoreFactory {
  kind: 'sqlite' | 'postgres';
  /** A new, empty store; `name` tells the scenario's stores apart. */
  create(name: string): Promise<ScratchStore>;
  /** Drops every scratch database it created. */
  dispose(): Promise<void>;
}

export function sqliteStores(workDir: string): StoreFactory {
  return {
    kind: 'sqlite',
    async create(name) {
      const dir = join(workDir, name);
      mkdirSync(dir, { recursive: true });
      const path = join(dir, 'hub.db');
      return { describe: path, env: { DB_DRIVER: 'sqlite', DB_PATH: path } };
    },
    async dispose() {
      // The files go with the run's folder.
    },
  };
}

const withoutPassword = (url: URL) => {
  const shown = new URL(url);
  if (shown.password) shown.password = '***';
  return shown.toString();
};

/** Scratch databases on the PostgreSQL server of `adminUrl`. */
export async function postgresStores(adminUrl: string): Promise<StoreFactory> {
  const admin = new pg.Client({ connectionString: adminUrl });
  // The server may end this connection (a restart, an administrator): dropping the databases then fails and says so.
  admin.on('error', () => undefined);
  try {
    await admin.connect();
  } catch (err) {
    throw new Error(`--pg: cannot reach PostgreSQL at ${withoutPassword(new URL(adminUrl))}: ${(err as Error).message}`);
  }
  const created: string[] = [];
  return {
    kind: 'postgres',
    async create(name) {
      // Lower-case letters, digits and underscores only: safe to splice into CREATE DATABASE.
      const db = `hub_bench_${name.replace(/[^a-z0-9]/gi, '_').toLowerCase()}_${randomBytes(4).toString('hex')}`;
      await admin.query(`CREATE DATABASE ${db}`);
      created.push(db);
      const url = new URL(adminUrl);
      url.pathname = `/${db}`;
      return { describe: withoutPassword(url), env: { DB_DRIVER: 'postgres', DATABASE_URL: url.toString() } };
    },
    async dispose() {
      try {
        for (const db of created.splice(0)) await admin.query(`DROP DATABASE IF EXISTS ${db} WITH (FORCE)`);
      } finally {
        await admin.end();
      }
    },
  };
}

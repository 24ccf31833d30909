// Migration runner: SQL files in `migrations/` named `NNNN_name.<driver>.sql`, applied in order,
// each in its own transaction together with its row in `migrations`, so a failure or a crash in
// the middle leaves the schema exactly as it was before that file.
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Logger } from 'pino';
import type { Store } from './db.js';

/** `migrations/` at the project root, seen from src/store (tsx) or dist/src/store (compiled). */
export const DEFAULT_MIGRATIONS_DIR =
  [new URL('../../migrations/', import.meta.url), new URL('../../../migrations/', import.meta.url)]
    .map((url) => fileURLToPath(url))
    .find((dir) => existsSync(dir)) ?? fileURLToPath(new URL('../../migrations/', import.meta.url));
const FILE = /^(\d{4}_[a-z0-9_]+)\.(sqlite|postgres)\.sql$/;

export interface Migration {
  name: string;
  sql: string;
  checksum: string;
}

export class MigrationError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'MigrationError';
  }
}

/** Reads this driver's scripts in name order; every migration must exist for both drivers. */
export async function loadMigrations(dir: string, driver: Store['driver']): Promise<Migration[]> {
  const byName = new Map<string, Set<string>>();
  for (const file of await readdir(dir)) {
    const match = FILE.exec(file);
    if (!match) continue;
    const drivers = byName.get(match[1]!) ?? new Set<string>();
    drivers.add(match[2]!);
    byName.set(match[1]!, drivers);
  }
  const migrations: Migration[] = [];
  for (const name of [...byName.keys()].sort()) {
    if (!byName.get(name)!.has(driver)) throw new MigrationError(`migration ${name} has no ${driver} script (${name}.${driver}.sql)`);
    const sql = await readFile(join(dir, `${name}.${driver}.sql`), 'utf8');
    migrations.push({ name, sql, checksum: createHash('sha256').update(sql).digest('hex') });
  }
  return migrations;
}

export interface MigrateOptions {
  dir?: string;
  logger?: Pick<Logger, 'info' | 'warn'>;
  /** Runs inside each migration's transaction just before it commits (crash tests). */
  beforeCommit?: (name: string) => void;
}

/** Applies pending migrations; returns the names applied by this call. */
export async function migrate(store: Store, options: MigrateOptions = {}): Promise<string[]> {
  const migrations = await loadMigrations(options.dir ?? DEFAULT_MIGRATIONS_DIR, store.driver);
  await store.migrations.ensureTable();
  const applied = new Map((await store.migrations.applied()).map((m) => [m.name, m.checksum]));
  for (const name of applied.keys()) {
    if (!migrations.some((m) => m.name === name)) {
      options.logger?.warn({ migration: name }, 'database has a migration this version does not know (a newer hub ran on it?)');
    }
  }
  const done: string[] = [];
  for (const migration of migrations) {
    const checksum = applied.get(migration.name);
    if (checksum !== undefined) {
      if (checksum !== migration.checksum) {
        throw new MigrationError(`migration ${migration.name} was edited after it was applied; add a new migration instead`);
      }
      continue;
    }
    try {
      const ran = await store.migrations.apply(migration.name, migration.checksum, migration.sql, () => options.beforeCommit?.(migration.name));
      if (ran) {
        done.push(migration.name);
        options.logger?.info({ migration: migration.name }, 'migration applied');
      }
    } catch (err) {
      throw new MigrationError(`migration ${migration.name} failed and was rolled back: ${(err as Error).message}`, { cause: err });
    }
  }
  return done;
}

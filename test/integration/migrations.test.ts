// The migration runner on a real database: fresh, already migrated, a failing file rolled back,
// an edited file refused, and a process killed in the middle of a migration.
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, expect, it } from 'vitest';
import type { DbConfig } from '../../src/config.js';
import { openStore, type Store } from '../../src/store/db.js';
import { isForeignKeyViolation } from '../../src/store/errors.js';
import { DEFAULT_MIGRATIONS_DIR, migrate, MigrationError } from '../../src/store/migrate.js';
import { createTestDatabase, describeEachDriver, type Driver, type TestDatabase } from '../helpers/db.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

function dbConfig(database: TestDatabase): DbConfig {
  return database.env['DB_DRIVER'] === 'sqlite'
    ? { driver: 'sqlite', path: database.env['DB_PATH']! }
    : { driver: 'postgres', url: database.env['DATABASE_URL']! };
}

async function tableNames(store: Store): Promise<string[]> {
  return (await store.db.introspection.getTables()).map((t) => t.name).sort();
}

async function appliedNames(store: Store): Promise<string[]> {
  return (await store.migrations.applied()).map((m) => m.name);
}

/** A copy of the real migrations plus extra files, per driver. */
function migrationsWith(driver: Driver, extra: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'hub-migrations-'));
  cpSync(DEFAULT_MIGRATIONS_DIR, dir, { recursive: true });
  for (const [name, sql] of Object.entries(extra)) {
    writeFileSync(join(dir, `${name}.${driver}.sql`), sql);
    writeFileSync(join(dir, `${name}.${driver === 'sqlite' ? 'postgres' : 'sqlite'}.sql`), sql);
  }
  return dir;
}

describeEachDriver('migrations', (driver) => {
  let database: TestDatabase;
  let store: Store;
  const dirs: string[] = [];
  beforeEach(async () => {
    database = await createTestDatabase(driver);
    store = openStore(dbConfig(database));
  });
  afterEach(async () => {
    await store.close().catch(() => undefined);
    await database.drop();
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  it('applies every migration to a fresh database and records each in `migrations`', async () => {
    const files = readdirSync(DEFAULT_MIGRATIONS_DIR)
      .filter((f) => f.endsWith(`.${driver}.sql`))
      .map((f) => f.replace(`.${driver}.sql`, ''));
    expect(await migrate(store)).toEqual(files.sort());
    expect(await appliedNames(store)).toEqual(files.sort());
    expect(await tableNames(store)).toEqual(expect.arrayContaining(['users', 'human_credentials', 'machine_credentials', 'messages', 'migrations']));
  });

  it('does nothing on an already-migrated database', async () => {
    await migrate(store);
    const before = await tableNames(store);
    expect(await migrate(store)).toEqual([]);
    expect(await tableNames(store)).toEqual(before);
  });

  it('rolls a failing migration back whole and keeps the earlier ones', async () => {
    const dir = migrationsWith(driver, {
      '9000_broken': 'CREATE TABLE half_done (id INTEGER);\nINSERT INTO table_that_does_not_exist VALUES (1);\n',
    });
    dirs.push(dir);
    const error = await migrate(store, { dir }).catch((err: unknown) => err);
    expect(error).toBeInstanceOf(MigrationError);
    expect((error as Error).message).toMatch(/^migration 9000_broken failed and was rolled back: /);
    expect(await tableNames(store)).not.toContain('half_done');
    expect(await appliedNames(store)).not.toContain('9000_broken');
    expect(await appliedNames(store)).toContain('0001_initial');
  });

  it('refuses to run when an applied migration was edited', async () => {
    const dir = migrationsWith(driver, { '9001_extra': 'CREATE TABLE extra_one (id INTEGER);\n' });
    dirs.push(dir);
    await migrate(store, { dir });
    writeFileSync(join(dir, `9001_extra.${driver}.sql`), 'CREATE TABLE extra_one (id INTEGER, more TEXT);\n');
    await expect(migrate(store, { dir })).rejects.toThrow('migration 9001_extra was edited after it was applied; add a new migration instead');
  });

  it('refuses a migration that has no script for this driver', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'hub-migrations-'));
    dirs.push(dir);
    writeFileSync(join(dir, `0001_only_other.${driver === 'sqlite' ? 'postgres' : 'sqlite'}.sql`), 'SELECT 1;');
    await expect(migrate(store, { dir })).rejects.toThrow(`migration 0001_only_other has no ${driver} script (0001_only_other.${driver}.sql)`);
  });

  it('0006 takes away the credentials Butler was given before, and only those', async () => {
    // A database as hubs before 0006 left it: Butler (id 2) with an api_token, an agent with one.
    const dir = mkdtempSync(join(tmpdir(), 'hub-migrations-'));
    dirs.push(dir);
    cpSync(DEFAULT_MIGRATIONS_DIR, dir, { recursive: true, filter: (path) => !path.includes('0006_') });
    await migrate(store, { dir });
    const at = new Date().toISOString();
    const user = (id: number, username: string, role: string) => ({
      id,
      username,
      role,
      actor_type: role === 'ADMIN' ? 'HUMAN' : 'SYSTEM',
      status: 'OFFLINE',
      online: 0,
      created_at: at,
      updated_at: at,
    });
    await store.db
      .insertInto('users')
      .values([user(1, 'admin', 'ADMIN'), user(2, 'Butler', 'BUTLER'), user(3, 'worker', 'AGENT')])
      .execute();
    const token = (userId: number) => ({
      user_id: userId,
      token_lookup: `lookup-${userId}`,
      token_cipher: 'cipher',
      token_hint: 'abcd...wxyz',
      token_updated_at: at,
    });
    await store.db
      .insertInto('machine_credentials')
      .values([token(2), token(3)])
      .execute();
    await store.db
      .insertInto('human_credentials')
      .values([
        { user_id: 1, password_hash: 'hash', updated_at: at },
        { user_id: 2, password_hash: 'hash', updated_at: at },
      ])
      .execute();

    expect(await migrate(store)).toEqual(['0006_butler_has_no_credentials']);
    const machines = await store.db.selectFrom('machine_credentials').select('user_id').execute();
    expect(machines.map((r) => Number(r.user_id))).toEqual([3]);
    const humans = await store.db.selectFrom('human_credentials').select('user_id').execute();
    expect(humans.map((r) => Number(r.user_id))).toEqual([1]);
  });

  it('0009 rebuilds a last_report taken from a report sent to one person, and only such', async () => {
    // A database as hubs before 0009 left it: agents whose latest report went to one member.
    const dir = mkdtempSync(join(tmpdir(), 'hub-migrations-'));
    dirs.push(dir);
    cpSync(DEFAULT_MIGRATIONS_DIR, dir, { recursive: true, filter: (path) => !path.includes('0009_') });
    await migrate(store, { dir });
    const at = new Date().toISOString();
    const user = (id: number, role: string, lastReport: string | null, online = 0) => ({
      id,
      username: `user-${id}`,
      role,
      actor_type: role === 'MEMBER' ? 'HUMAN' : 'SYSTEM',
      status: online ? 'ONLINE' : 'OFFLINE',
      online,
      last_report: lastReport,
      created_at: at,
      updated_at: at,
    });
    await store.db
      .insertInto('users')
      .values([
        user(1, 'MEMBER', null),
        user(2, 'AGENT', 'secret for the member'),
        user(3, 'AGENT', 'only ever targeted', 1),
        user(4, 'AGENT', 'public news'),
        user(5, 'AGENT', 'websocket_disconnected'),
        user(6, 'AGENT', 'the typed secret'),
        user(7, 'AGENT', 'secret again'),
      ])
      .execute();
    const report = (sender: number, type: string, payload: unknown, target: number | null = null) => ({
      type,
      sender_id: sender,
      sender_name: `user-${sender}`,
      sender_role: 'AGENT',
      target_id: target,
      target_role: target === null ? null : 'MEMBER',
      payload: JSON.stringify(payload),
      level: 'INFO',
      content: typeof payload === 'string' ? payload : String((payload as { content?: string }).content ?? ''),
      created_at: at,
    });
    await store.db
      .insertInto('messages')
      .values([
        report(2, 'SYSTEM_LOG', { level: 'INFO', content: 'deployed\nversion 2' }),
        report(2, 'SYSTEM_LOG', { level: 'INFO', content: 'secret for the member' }, 1),
        report(3, 'SYSTEM_LOG', { level: 'INFO', content: 'only ever targeted' }, 1),
        report(4, 'SYSTEM_LOG', { level: 'INFO', content: 'old secret' }, 1),
        report(4, 'SYSTEM_LOG', { level: 'INFO', content: 'public news' }),
        report(5, 'SYSTEM_LOG', { level: 'INFO', content: 'a secret before it left' }, 1),
        report(6, 'WEATHER_UPDATE', { location: 'Oslo', temperature_c: -3.5, conditions: 'light snow' }),
        report(6, 'SECURITY_ALERT', { severity: 'high', content: 'the typed secret' }, 1),
        report(7, 'CODE_REVIEW', { verdict: 'request_changes', content: '2 findings' }),
        report(7, 'SECURITY_ALERT', 'plain alert'),
        report(7, 'SYSTEM_LOG', 'secret again', 1),
      ])
      .execute();

    expect(await migrate(store)).toEqual(['0009_last_report_for_everyone']);
    const rows = await store.db.selectFrom('users').select(['id', 'last_report']).orderBy('id').execute();
    expect(rows.map((r) => [Number(r.id), r.last_report])).toEqual([
      [1, null],
      [2, 'deployed version 2'],
      [3, 'websocket_connected'],
      [4, 'public news'],
      [5, 'websocket_disconnected'],
      [6, 'Weather in Oslo: -3.5 °C, light snow'],
      [7, 'Security alert: plain alert'],
    ]);
  });

  it('0011 adds the ops inventory: unique names, and no key deleted while a node names it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'hub-migrations-'));
    dirs.push(dir);
    cpSync(DEFAULT_MIGRATIONS_DIR, dir, { recursive: true, filter: (path) => !path.includes('0011_') });
    await migrate(store, { dir });
    expect(await tableNames(store)).not.toContain('ssh_keys');
    expect(await migrate(store)).toEqual(['0011_ops_inventory']);
    expect(await tableNames(store)).toEqual(expect.arrayContaining(['ssh_keys', 'infra_nodes', 'ops_tasks']));

    const at = new Date().toISOString();
    const key = (name: string) => ({
      name,
      public_key: 'ssh-ed25519 AAAA',
      fingerprint: 'SHA256:x',
      private_key_cipher: 'v1.x',
      created_at: at,
      updated_at: at,
    });
    const { id: keyId } = await store.db.insertInto('ssh_keys').values(key('bastion')).returning('id').executeTakeFirstOrThrow();
    const failure = (p: Promise<unknown>) =>
      p.then(
        () => undefined,
        (err: unknown) => err as { code?: string },
      );
    expect(await failure(store.db.insertInto('ssh_keys').values(key('bastion')).execute())).toMatchObject({
      code: expect.stringMatching(/^(SQLITE_CONSTRAINT_UNIQUE|23505)$/),
    });
    const node = { name: 'web-01', host: '10.0.0.1', port: 22, ssh_user: 'ubuntu', description: '', created_at: at, updated_at: at };
    await store.db
      .insertInto('infra_nodes')
      .values({ ...node, ssh_key_id: keyId })
      .execute();
    expect(
      await failure(
        store.db
          .insertInto('infra_nodes')
          .values({ ...node, name: 'web-02', ssh_key_id: 999 })
          .execute(),
      ),
    ).toMatchObject({
      code: expect.stringMatching(/^(SQLITE_CONSTRAINT_FOREIGNKEY|23503)$/),
    });
    // SQLite names a RESTRICT refusal with the trigger code; store/errors.ts reads both as a foreign-key violation.
    const restricted = await failure(store.db.deleteFrom('ssh_keys').where('id', '=', keyId).execute());
    expect(isForeignKeyViolation(restricted)).toBe(true);
    await store.db.deleteFrom('infra_nodes').execute();
    await store.db.deleteFrom('ssh_keys').where('id', '=', keyId).execute();
    expect(await store.db.selectFrom('ssh_keys').selectAll().execute()).toEqual([]);
  });

  it('leaves the schema as it was when the process is killed in the middle of a migration', async () => {
    await migrate(store);
    const before = await tableNames(store);
    await store.close();
    const dir = migrationsWith(driver, { '9002_crash': 'CREATE TABLE created_before_crash (id INTEGER);\n' });
    dirs.push(dir);
    const child = spawnSync(process.execPath, ['--import', 'tsx', 'test/helpers/crashMigration.ts', JSON.stringify(dbConfig(database)), dir, '9002_crash'], {
      cwd: ROOT,
      encoding: 'utf8',
      timeout: 30_000,
    });
    expect(child.signal, child.stderr).toBe('SIGKILL');
    expect(child.stdout).not.toContain('finished without crashing');

    store = openStore(dbConfig(database));
    expect(await tableNames(store)).toEqual(before);
    expect(await appliedNames(store)).not.toContain('9002_crash');
    // The next start applies it normally.
    expect(await migrate(store, { dir })).toEqual(['9002_crash']);
    expect(await tableNames(store)).toContain('created_before_crash');
  });
});

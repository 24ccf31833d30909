// Prepared queries: compiled once, arguments bound per call, on a real SQLite database.
import BetterSqlite3 from 'better-sqlite3';
import { Kysely, SqliteDialect, sql } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { prepare } from '../../../../src/store/repositories/prepared.js';

interface Db {
  pets: { id: number; name: string; kind: string };
}

describe('prepare', () => {
  let db: Kysely<Db>;
  beforeEach(async () => {
    db = new Kysely<Db>({ dialect: new SqliteDialect({ database: new BetterSqlite3(':memory:') }) });
    await sql`CREATE TABLE pets (id INTEGER PRIMARY KEY, name TEXT NOT NULL, kind TEXT NOT NULL)`.execute(db);
    await db
      .insertInto('pets')
      .values([
        { id: 1, name: 'Rex', kind: 'dog' },
        { id: 2, name: 'Tom', kind: 'cat' },
        { id: 3, name: 'Fido', kind: 'dog' },
      ])
      .execute();
  });
  afterEach(() => db.destroy());

  it('binds each call’s arguments in place of the placeholders, keeping constants', async () => {
    const page = prepare(db, 2, (limit: number, offset: number) =>
      db.selectFrom('pets').selectAll().where('kind', '=', 'dog').orderBy('id').limit(limit).offset(offset),
    );
    expect((await page(1, 0)).map((p) => p.name)).toEqual(['Rex']);
    expect((await page(5, 1)).map((p) => p.name)).toEqual(['Fido']);
    // Arguments in an order other than the SQL's.
    const named = prepare(db, 2, (name: string, id: number) => db.selectFrom('pets').select('name').where('id', '=', id).where('name', '=', name));
    expect(await named('Tom', 2)).toEqual([{ name: 'Tom' }]);
    expect(await named('Tom', 1)).toEqual([]);
  });

  it('refuses a query that transforms or drops an argument', () => {
    expect(() => prepare(db, 1, (name: string) => db.selectFrom('pets').selectAll().where('name', 'like', `%${name}%`))).toThrow(/argument 0/);
    expect(() => prepare(db, 2 as 1, (id: number) => db.selectFrom('pets').selectAll().where('id', '=', id))).toThrow(/argument 1/);
  });
});

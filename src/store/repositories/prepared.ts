// Queries on the request path compiled once: Kysely rebuilds and recompiles a query's tree on every
// call, which was a large share of an API request's CPU. A prepared query is built once with a
// placeholder per argument; each call binds the arguments into the compiled parameters. The SQL
// text stays the same, so SQLite's statement cache (and PostgreSQL's plan) is reused as well.
import type { Compilable, CompiledQuery, Kysely } from 'kysely';

const placeholder = (i: number) => `\u0000prepared-argument-${i}\u0000`;

/**
 * `build` receives one placeholder per argument and must pass each one, unchanged, as a value
 * (`where('id', '=', id)`); a placeholder transformed on the way (`lower(...)`, `%...%`) cannot be
 * bound later, and `prepare` throws on it at once.
 */
export function prepare<DB, Row, Args extends readonly unknown[]>(
  db: Kysely<DB>,
  arity: Args['length'],
  build: (...args: Args) => Compilable<Row>,
): (...args: Args) => Promise<Row[]> {
  const placeholders = Array.from({ length: arity }, (_, i) => placeholder(i));
  const compiled = build(...(placeholders as unknown as Args)).compile();
  const slots = compiled.parameters.map((value) => (typeof value === 'string' ? placeholders.indexOf(value) : -1));
  for (let i = 0; i < arity; i++) {
    if (slots.filter((slot) => slot === i).length !== 1) throw new Error(`prepare: argument ${i} must appear once, unchanged, among the query's values`);
  }
  return async (...args) => {
    const parameters = slots.map((slot, j) => (slot >= 0 ? args[slot] : compiled.parameters[j]));
    const query: CompiledQuery<Row> = { ...compiled, parameters };
    return (await db.executeQuery(query)).rows;
  };
}

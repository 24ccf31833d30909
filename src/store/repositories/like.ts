// Case-insensitive substring match that treats `%`, `_` and `\` in user input literally.
import { sql, type Expression, type SqlBool } from 'kysely';

export function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}

/**
 * Searchable text columns cannot hold NUL (PostgreSQL refuses it, SQLite's string functions stop
 * at it); the exact value stays in the JSON payload, the searchable copy gets U+FFFD instead.
 */
export function storableText(text: string): string {
  return text.includes('\u0000') ? text.replaceAll('\u0000', '\uFFFD') : text;
}

export function containsIgnoreCase(column: Expression<string | null>, needle: string): Expression<SqlBool> {
  const pattern = `%${escapeLike(storableText(needle).toLowerCase())}%`;
  return sql<SqlBool>`lower(${column}) LIKE ${pattern} ESCAPE '\\'`;
}

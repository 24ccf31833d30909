// Case-insensitive substring match that treats `%`, `_` and `\` in user input literally.
import { sql, type Expression, type SqlBool } from 'kysely';

export function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}

export function containsIgnoreCase(column: Expression<string | null>, needle: string): Expression<SqlBool> {
  const pattern = `%${escapeLike(needle.toLowerCase())}%`;
  return sql<SqlBool>`lower(${column}) LIKE ${pattern} ESCAPE '\\'`;
}

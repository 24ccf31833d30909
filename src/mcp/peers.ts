// Naming a user in a tool call: by id (digits) or by username, as an LLM would write either.
import { Errors } from '../errors.js';
import type { UserRow } from '../store/schema.js';
import type { McpDeps } from './context.js';

export async function findUser(users: McpDeps['users'], nameOrId: string): Promise<UserRow> {
  const text = nameOrId.trim();
  const byId = /^\d{1,15}$/.test(text) ? await users.findById(Number(text)) : undefined;
  const user = byId ?? (await users.findByUsername(text));
  if (!user) throw Errors.notFound(`user "${text}"`);
  return user;
}

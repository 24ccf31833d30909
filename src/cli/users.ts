// `--to bob` and `agents rotate weather-bot`: a user named by id or by user name, found over REST.
// Agents and Butler are visible to any user; people only to admins (GET /api/users).
import type { UserView } from '../protocol/objects.js';
import type { RestClient } from '../client/rest.js';
import { HubRequestError } from '../client/rest.js';
import type { UserRef } from './options.js';

/** A mistake the person typing can fix (exit 2 is for the command line itself, this is 1 like any refusal). */
export class NotFoundError extends Error {}

const exact = (users: UserView[], name: string) => users.find((u) => u.username === name);

/** The agent (or Butler) with this name or id. */
export async function findAgent(rest: RestClient, ref: UserRef): Promise<UserView> {
  const { items } = await rest.agents.list({ q: typeof ref === 'string' ? ref : undefined, limit: 1000 });
  const found = typeof ref === 'number' ? items.find((u) => u.id === ref) : exact(items, ref);
  if (!found) throw new NotFoundError(`no agent ${typeof ref === 'number' ? `with id ${ref}` : `named "${ref}"`}`);
  return found;
}

/** The person (admin or member) with this name or id; admins only, as `GET /api/users` is. */
export async function findPerson(rest: RestClient, ref: UserRef): Promise<UserView> {
  if (typeof ref === 'number') {
    const user = await rest.users.get(ref);
    if (user.role !== 'ADMIN' && user.role !== 'MEMBER')
      throw new NotFoundError(`user ${ref} is ${user.role === 'AGENT' ? 'an agent' : 'Butler'}, not a person`);
    return user;
  }
  const { items } = await rest.users.list({ q: ref, limit: 1000 });
  const found = items.find((u) => u.username === ref && (u.role === 'ADMIN' || u.role === 'MEMBER'));
  if (!found) throw new NotFoundError(`no person named "${ref}"`);
  return found;
}

/** A user's name for a listing, or `user #<id>` when the caller may not see them (a member sees no other people). */
export async function nameOfUser(rest: RestClient, id: number): Promise<string> {
  try {
    return (await rest.users.get(id)).username;
  } catch (err) {
    if (err instanceof HubRequestError && err.status === 404) return `user #${id}`;
    throw err;
  }
}

/** The id of the user this names: an id as given; a name looked up among agents, then people. */
export async function userIdOf(rest: RestClient, ref: UserRef): Promise<number> {
  if (typeof ref === 'number') return ref;
  const agents = await rest.agents.list({ q: ref, limit: 1000 });
  const agent = exact(agents.items, ref);
  if (agent) return agent.id;
  try {
    const people = await rest.users.list({ q: ref, limit: 1000 });
    const person = exact(people.items, ref);
    if (person) return person.id;
  } catch (err) {
    // Only admins list people; anyone else may still name them by id.
    if (err instanceof HubRequestError && err.status === 403)
      throw new NotFoundError(`no agent named "${ref}" (people are found by name with an admin token only; use their id)`);
    throw err;
  }
  throw new NotFoundError(`no user named "${ref}"`);
}

// The SDK's call context as the hub fills it: the authenticated caller (a hub user), and the agent
// whose endpoint was called. The task store, the executor and the event buses read them from here,
// so every task is scoped to its caller and its agent.
import { ServerCallContext, type User } from '@a2a-js/sdk/server';
import type { UserRow } from '../store/schema.js';

/** A hub user as the SDK sees one; its name (the user id) scopes event buses and stores. */
export class HubUser implements User {
  constructor(readonly row: UserRow) {}
  get isAuthenticated(): boolean {
    return true;
  }
  get userName(): string {
    return String(this.row.id);
  }
}

const TARGET = 'hub.a2a.target';

export function createCallContext(options: { caller: UserRow; target: UserRow; requestedVersion: string | undefined }): ServerCallContext {
  const state = new Map<string, unknown>([[TARGET, options.target]]);
  return new ServerCallContext({ user: new HubUser(options.caller), requestedVersion: options.requestedVersion, state });
}

/** The caller and the agent of a call the hub made; anything else is a bug. */
export function partiesOf(context: ServerCallContext): { caller: UserRow; target: UserRow } {
  const user = context.user;
  const target = context.state.get(TARGET) as UserRow | undefined;
  if (!(user instanceof HubUser) || target === undefined) throw new Error('an A2A call without the hub context');
  return { caller: user.row, target };
}

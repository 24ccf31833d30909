// Wire views of user rows with the token hints of the machine users among them (one query).
import { toUserView, type UserView } from '../protocol/objects.js';
import { isMachineRole } from '../protocol/roles.js';
import type { CredentialsRepo } from '../store/repositories/credentials.js';
import type { UserRow } from '../store/schema.js';

export async function toUserViews(rows: UserRow[], credentials: CredentialsRepo): Promise<UserView[]> {
  const machineIds = rows.filter((r) => isMachineRole(r.role)).map((r) => r.id);
  const hints = new Map((await credentials.machinesOf(machineIds)).map((c) => [c.user_id, c]));
  return rows.map((r) => toUserView(r, hints.get(r.id)));
}

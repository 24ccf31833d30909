// Who an A2A caller may reach, by the hub's routing rules: a human may use Butler and every agent;
// an agent may use Butler only (agents reach other agents only through Butler, as over the socket).
// The same rule decides the catalogue, the cards' endpoints and each task's target.
import { Errors } from '../errors.js';
import { isMachineRole } from '../protocol/roles.js';
import type { UserRow } from '../store/schema.js';

/** A user an A2A endpoint can stand for: an agent or Butler. */
export const isCardSubject = (row: Pick<UserRow, 'role'>): boolean => row.role === 'AGENT' || row.role === 'BUTLER';

/** Whether `caller` may send to `target` over A2A. */
export function mayUse(caller: Pick<UserRow, 'id' | 'role'>, target: Pick<UserRow, 'id' | 'role'>): boolean {
  if (!isCardSubject(target) || caller.id === target.id) return false;
  return !isMachineRole(caller.role) || target.role === 'BUTLER';
}

/** The refusal for a caller that may not use `target` (its card exists): the socket's own words. */
export function refusalFor(caller: Pick<UserRow, 'id' | 'role'>, target: Pick<UserRow, 'id' | 'role' | 'username'>): Error {
  if (caller.id === target.id) return Errors.forbidden('an agent cannot send a task to itself');
  return Errors.forbidden(`agents reach other agents only through Butler: send the task to Butler instead of ${target.username}`);
}

// Roles of the hub's users: humans (ADMIN, MEMBER) and machines (AGENT, BUTLER).
import { memberOf } from './memberOf.js';

export const HumanRoles = ['ADMIN', 'MEMBER'] as const;
export const MachineRoles = ['AGENT', 'BUTLER'] as const;
export const Roles = [...HumanRoles, ...MachineRoles] as const;
/** Humans log in; the hub's SYSTEM users are the machines. */
export const ActorTypes = ['HUMAN', 'SYSTEM'] as const;

export type HumanRole = (typeof HumanRoles)[number];
export type MachineRole = (typeof MachineRoles)[number];
export type Role = (typeof Roles)[number];
export type ActorType = (typeof ActorTypes)[number];

export const BUTLER_USERNAME = 'Butler';

export const isMachineRole = memberOf(MachineRoles);

export function actorTypeOf(role: Role): ActorType {
  return isMachineRole(role) ? 'SYSTEM' : 'HUMAN';
}

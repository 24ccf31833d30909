// The router's address table: user id → that user's open endpoints (sockets, and endpoints inside the hub: Butler and chat-platform identities).
// Bind/unbind rules: an endpoint is bound once and unbound once; unbinding an endpoint that is not
// (or no longer) bound changes nothing, so a late close can never remove a newer socket's binding.
import type { Endpoint } from './types.js';
import { isMachineRole } from '../protocol/roles.js';

export interface AddressSummary {
  /** Sockets. */
  endpoints: number;
  /** Endpoints inside the hub (Butler, chat-platform identities), not counted as sockets. */
  inHub: number;
  users: number;
  humans: number;
  admins: number;
  byRole: Record<string, number>;
  /** Users with more than one open endpoint, and how many. */
  multiSocketUsers: Record<number, number>;
}

/**
 * The read port of the table (who is connected where on this node), for parts outside the router:
 * the table is mutated in place by the router, so one reference stays current.
 */
export interface AddressReader {
  /** Endpoints that receive broadcasts (every socket). */
  readonly all: ReadonlySet<Endpoint>;
  countOf(userId: number): number;
  summary(): AddressSummary;
}

export class AddressTable implements AddressReader {
  private readonly byUser = new Map<number, Set<Endpoint>>();
  private readonly bound = new Set<Endpoint>();
  /** Endpoints that receive broadcasts (every socket). */
  readonly all = new Set<Endpoint>();
  readonly humans = new Set<Endpoint>();
  readonly admins = new Set<Endpoint>();

  /**
   * Returns true when this is the user's first open socket: endpoints inside the hub (Butler, an A2A
   * caller's answers) never make or end a user's presence.
   */
  bind(endpoint: Endpoint): boolean {
    if (this.bound.has(endpoint)) return false;
    this.bound.add(endpoint);
    if (!endpoint.inHub) this.all.add(endpoint);
    if (!endpoint.inHub && !isMachineRole(endpoint.user.role)) this.humans.add(endpoint);
    if (!endpoint.inHub && endpoint.user.role === 'ADMIN') this.admins.add(endpoint);
    let set = this.byUser.get(endpoint.user.id);
    if (!set) this.byUser.set(endpoint.user.id, (set = new Set()));
    set.add(endpoint);
    return !endpoint.inHub && this.socketsIn(set) === 1;
  }

  /** Returns true when this was the user's last open socket. */
  unbind(endpoint: Endpoint): boolean {
    if (!this.bound.delete(endpoint)) return false;
    this.all.delete(endpoint);
    this.humans.delete(endpoint);
    this.admins.delete(endpoint);
    const set = this.byUser.get(endpoint.user.id);
    if (!set) return false;
    set.delete(endpoint);
    if (set.size === 0) this.byUser.delete(endpoint.user.id);
    return !endpoint.inHub && this.socketsIn(set) === 0;
  }

  private socketsIn(set: ReadonlySet<Endpoint>): number {
    let n = 0;
    for (const e of set) if (!e.inHub) n++;
    return n;
  }

  of(userId: number): ReadonlySet<Endpoint> | undefined {
    return this.byUser.get(userId);
  }

  countOf(userId: number): number {
    return this.byUser.get(userId)?.size ?? 0;
  }

  summary(): AddressSummary {
    const byRole: Record<string, number> = {};
    for (const e of this.all) byRole[e.user.role] = (byRole[e.user.role] ?? 0) + 1;
    const multiSocketUsers: Record<number, number> = {};
    for (const [id, set] of this.byUser) if (set.size > 1) multiSocketUsers[id] = set.size;
    return {
      endpoints: this.all.size,
      inHub: this.bound.size - this.all.size,
      users: this.byUser.size,
      humans: this.humans.size,
      admins: this.admins.size,
      byRole,
      multiSocketUsers,
    };
  }
}

// Access levels as guards: each reads the request's credentials and settles who the caller is, or
// throws the refusal. Public routes have no caller; the others have the authenticated user.
import { createHash, timingSafeEqual } from 'node:crypto';
import { Errors } from '../errors.js';
import type { AuthService } from '../auth/service.js';
import { isMachineRole } from '../protocol/roles.js';
import type { UserRow } from '../store/schema.js';
import type { Request } from './context.js';
import type { AccessLevel } from './routeDocs.js';

const BEARER = /^bearer\s+(\S+)\s*$/i;
const digest = (text: string) => createHash('sha256').update(text).digest();

/** The caller (a user, or none on a public route), or a thrown refusal. */
export type Guard = (req: Request) => UserRow | undefined | Promise<UserRow>;

export interface AccessDeps {
  auth: Pick<AuthService, 'authenticate'>;
  isProduction: boolean;
  /** The bearer token GET /metrics asks for; undefined: metrics are public. */
  metricsToken: string | undefined;
  /** A2A_PUBLIC_CARDS: the 'cards' routes need no credential (one that is sent is still checked). */
  publicCards?: boolean;
}

export function createAccess(deps: AccessDeps) {
  const { auth, isProduction } = deps;
  const expectedMetricsToken = deps.metricsToken === undefined ? undefined : digest(deps.metricsToken);

  function bearer(req: Request): string {
    const header = req.headers['authorization'];
    if (!header) throw Errors.authHeaderRequired();
    const match = BEARER.exec(String(header));
    if (!match) throw Errors.authHeaderFormat();
    return match[1]!;
  }

  async function authenticate(token: string): Promise<UserRow> {
    const user = await auth.authenticate(token);
    if (!user) throw Errors.invalidToken();
    return user;
  }

  const authenticated = (req: Request): Promise<UserRow> => authenticate(bearer(req));

  /** Compared in constant time. */
  const metrics: Guard = (req) => {
    if (!expectedMetricsToken) return undefined;
    if (!timingSafeEqual(digest(bearer(req)), expectedMetricsToken)) throw Errors.invalidToken();
    return undefined;
  };

  const admin = (user: UserRow): UserRow => {
    if (user.role !== 'ADMIN') throw Errors.adminRequired();
    return user;
  };

  return {
    /** The guard of an access level; `machineRefusal` is the 403 text a machine gets from a 'human' route. */
    guard(level: AccessLevel, machineRefusal?: string): Guard {
      switch (level) {
        case 'public':
          return () => undefined;
        case 'metrics':
          return metrics;
        case 'authenticated':
          return authenticated;
        case 'human': {
          if (machineRefusal === undefined) throw new Error('a human route names the 403 text machines get');
          const refusal = machineRefusal;
          return (req) =>
            authenticated(req).then((user) => {
              if (isMachineRole(user.role)) throw Errors.forbidden(refusal);
              return user;
            });
        }
        case 'admin':
          return (req) => authenticated(req).then(admin);
        case 'cards':
          return deps.publicCards ? (req) => (req.headers['authorization'] === undefined ? undefined : authenticated(req)) : authenticated;
        case 'admin-non-production':
          // Production is checked after the credentials and before the role, as the refusals read.
          return (req) =>
            authenticated(req).then((user) => {
              if (isProduction) throw Errors.mockDisabled();
              return admin(user);
            });
      }
    },
  };
}
export type Access = ReturnType<typeof createAccess>;

// Access levels as middleware: any authenticated user, admin, and non-production (dev mock).
import { Errors } from '../errors.js';
import type { AuthService } from '../auth/service.js';
import { callerOf, setCaller, type Handler } from './context.js';

const BEARER = /^bearer\s+(\S+)\s*$/i;

export function createAccess(auth: AuthService, isProduction: boolean) {
  const authenticated: Handler = (req, res, next) => {
    const header = req.headers['authorization'];
    if (!header) return next(Errors.authHeaderRequired());
    const match = BEARER.exec(String(header));
    if (!match) return next(Errors.authHeaderFormat());
    auth
      .authenticate(match[1]!)
      .then((user) => {
        if (!user) return next(Errors.invalidToken());
        setCaller(res, user);
        next();
      })
      .catch(next);
  };

  const admin: Handler = (_req, res, next) => {
    next(callerOf(res).role === 'ADMIN' ? undefined : Errors.adminRequired());
  };

  const nonProduction: Handler = (_req, _res, next) => {
    next(isProduction ? Errors.mockDisabled() : undefined);
  };

  return {
    authenticated: [authenticated],
    admin: [authenticated, admin],
    adminNonProduction: [authenticated, nonProduction, admin],
  };
}
export type Access = ReturnType<typeof createAccess>;

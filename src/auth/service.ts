// Who is calling: password login and self-registration for humans, and resolving a bearer
// credential (a human's JWT, or an agent's api_token) to a current user row. Sessions carry the user's
// row; the HTTP edge shows it as a view. Creating the account is the users service's, passed in: the
// services import auth (hashing, tokens), never the other way.
import { Errors } from '../errors.js';
import { isMachineRole } from '../protocol/roles.js';
import type { CredentialsRepo } from '../store/repositories/credentials.js';
import type { UsersRepo } from '../store/repositories/users.js';
import type { UserRow } from '../store/schema.js';
import type { TokenVault } from './agentTokens.js';
import { createCredentialCache } from './credentialCache.js';
import type { JwtIssuer } from './jwt.js';
import type { LoginThrottle } from './loginThrottle.js';
import type { PasswordHasher } from './passwords.js';
import { toPrincipal } from '../delivery/directory.js';
import type { Principal } from '../delivery/types.js';

export interface AuthServiceDeps {
  users: UsersRepo;
  credentials: CredentialsRepo;
  passwords: PasswordHasher;
  jwt: JwtIssuer;
  vault: TokenVault;
  /** Creates a self-registered member (services/users.ts: the name is checked, the password hashed). */
  usersService: { createHuman(input: { username: string; password: string; role: 'MEMBER' }): Promise<UserRow> };
  throttle: LoginThrottle;
  allowSelfRegistration: boolean;
  /** Shown to dashboards beside the sign-in options: how long Butler waits for an agent's answer. */
  agentReplyTimeoutSeconds?: number;
}

export interface Session {
  token: string;
  user: UserRow;
}

const JWT_SHAPE = /^[\w-]+\.[\w-]+\.[\w-]+$/;

/** Agent tokens whose lookup digest is kept (an HMAC per request otherwise). */
const LOOKUP_CAPACITY = 10_000;

export function createAuthService(deps: AuthServiceDeps) {
  const { users, credentials, passwords, jwt, vault } = deps;
  // The digest is a pure function of the token: which agent holds it is read from the store each time.
  const lookups = createCredentialCache<string>(LOOKUP_CAPACITY);
  const lookupOf = (token: string) => {
    let lookup = lookups.get(token);
    if (lookup === undefined) lookups.set(token, (lookup = vault.lookup(token)));
    return lookup;
  };

  async function sessionFromJwt(token: string): Promise<{ user: UserRow; expiresAt: number } | undefined> {
    const claims = jwt.verify(token);
    if (!claims) return undefined;
    const id = Number(claims.sub);
    if (!Number.isSafeInteger(id)) return undefined;
    const user = await users.findById(id);
    // The name must still match: ids of deleted users can come back after a dev reset. Sessions are
    // for humans: a JWT naming a machine (Butler above all) is refused.
    if (!user || user.username !== claims.username || isMachineRole(user.role)) return undefined;
    return { user, expiresAt: claims.exp * 1000 };
  }

  async function userFromAgentToken(token: string): Promise<UserRow | undefined> {
    const user = await users.findByTokenLookup(lookupOf(token));
    // Only agents hold api_tokens. Butler runs inside the hub: a token left on it (hubs from before
    // migration 0006) must not open a socket or call the API as Butler.
    return user?.role === 'AGENT' ? user : undefined;
  }

  return {
    /** `clientAddress` identifies the caller for the failed-login throttle. */
    async login(username: string, password: string, clientAddress: string): Promise<Session> {
      // Counted as a failure before the hash: parallel guesses each spend one of the budget.
      const attempt = await deps.throttle.reserve(clientAddress, username);
      let user: UserRow | undefined;
      let ok: boolean;
      try {
        user = await users.findByUsername(username);
        const hash = user && !isMachineRole(user.role) ? await credentials.passwordHash(user.id) : undefined;
        ok = hash === undefined ? await passwords.verifyAgainstNothing(password) : await passwords.verify(password, hash);
      } catch (err) {
        await attempt.abandoned();
        throw err;
      }
      if (!ok || !user) {
        attempt.failed();
        throw Errors.invalidCredentials();
      }
      await attempt.succeeded();
      return { token: jwt.sign(user), user };
    },

    /** Whether POST /api/auth/register is open. */
    selfRegistration: deps.allowSelfRegistration,
    agentReplyTimeoutSeconds: deps.agentReplyTimeoutSeconds ?? 60,

    async register(username: string, password: string): Promise<Session> {
      if (!deps.allowSelfRegistration) throw Errors.registrationDisabled();
      const user = await deps.usersService.createHuman({ username, password, role: 'MEMBER' });
      return { token: jwt.sign(user), user };
    },

    /** A human's JWT or an agent's api_token → the caller, re-read from the store; else undefined. */
    async authenticate(credential: string): Promise<UserRow | undefined> {
      return JWT_SHAPE.test(credential) ? (await sessionFromJwt(credential))?.user : userFromAgentToken(credential);
    },

    /** The same for a WebSocket: who, and until when (JWTs expire; agent tokens do not). */
    async session(credential: string): Promise<{ user: Principal; expiresAt?: number } | undefined> {
      if (JWT_SHAPE.test(credential)) {
        const session = await sessionFromJwt(credential);
        return session && { user: toPrincipal(session.user), expiresAt: session.expiresAt };
      }
      const user = await userFromAgentToken(credential);
      return user && { user: toPrincipal(user) };
    },
  };
}
export type AuthService = ReturnType<typeof createAuthService>;

// The auth stage: password hashing, agent-token vault, JWTs, and the services that check
// credentials (auth) and change them (users: a changed credential ends the user's sessions); and the
// box that keeps the ops inventory's SSH private keys encrypted.
import { createAccessTokenVault } from '../auth/accessTokens.js';
import { createTokenVault } from '../auth/agentTokens.js';
import { createJwtIssuer } from '../auth/jwt.js';
import { createLoginThrottle } from '../auth/loginThrottle.js';
import { createPasswordHasher } from '../auth/passwords.js';
import { createSecretBox } from '../auth/secrets.js';
import { createAuthService } from '../auth/service.js';
import type { LiveSessions } from '../actors/liveSessions.js';
import type { Clock } from '../clock.js';
import type { Config } from '../config.js';
import { createUsersService } from '../services/users.js';
import type { Redis } from 'ioredis';
import type { Store } from '../store/db.js';
import type { Repos } from './storage.js';

export interface AuthOptions {
  config: Config;
  store: Store;
  repos: Repos;
  clock: Clock;
  sessions: LiveSessions;
  jwtSecret: string;
  /** scrypt cost; tests lower it. */
  passwordCost?: number;
  /** Cluster mode: failed logins are counted on this Redis, across every node. */
  redis?: Redis;
}

export function createAuth(options: AuthOptions) {
  const { config, repos, clock, sessions, jwtSecret } = options;
  const { users, credentials } = repos;
  const passwords = createPasswordHasher({ cost: options.passwordCost });
  const secret = config.auth.tokenSecret ?? jwtSecret;
  const vault = createTokenVault(secret);
  const accessTokenVault = createAccessTokenVault(secret);
  const usersService = createUsersService({ db: options.store.db, users, credentials, passwords, clock, sessions });
  const service = createAuthService({
    users,
    credentials,
    passwords,
    jwt: createJwtIssuer(jwtSecret, config.auth.jwtExpiresInSeconds),
    vault,
    usersService,
    throttle: createLoginThrottle({
      maxFailures: config.auth.loginMaxFailures,
      maxFailuresPerAddress: config.auth.loginMaxFailuresPerAddress,
      maxFailuresPerAccount: config.auth.loginMaxFailuresPerAccount,
      windowSeconds: config.auth.loginFailureWindowSeconds,
      redis: options.redis,
      keyPrefix: config.cluster && `${config.cluster.name}:`,
    }),
    allowSelfRegistration: config.auth.allowSelfRegistration,
    agentReplyTimeoutSeconds: Math.round(config.butler.agentReplyTimeoutMs / 1000),
  });
  // Its own purpose key, as the connector's secrets have theirs (see auth/secrets.ts).
  const sshKeyBox = createSecretBox(secret, 'ssh-key-encryption');
  const a2aPushBox = createSecretBox(secret, 'a2a-push-credentials');
  return { passwords, vault, accessTokenVault, sshKeyBox, a2aPushBox, users: usersService, service };
}
export type Auth = ReturnType<typeof createAuth>;

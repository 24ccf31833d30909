// What services that change credentials and users need from the live side: close the sockets of a
// user (their credential or rights changed) and forget what the pipeline cached about them.
import type { RouterRef } from './connection.js';
import type { Directory } from '../delivery/directory.js';

export interface LiveSessions {
  /** Closes every open socket of the user with `code` and drops the cached identity. */
  endUser(userId: number, code: number, reason: string): void;
  /** Closes every socket (dev reset wiped the users they belong to). */
  endAll(code: number, reason: string): void;
}

/** Cluster mode: the other nodes close their sockets too. */
export interface SessionsElsewhere {
  closeUser(userId: number, code: number, reason: string): void;
  closeAll(code: number, reason: string): void;
}

export function createLiveSessions(router: RouterRef, directory: Directory, elsewhere?: SessionsElsewhere): LiveSessions {
  return {
    endUser(userId, code, reason) {
      directory.forget(userId);
      router.send({ type: 'CLOSE_USER', userId, code, reason });
      elsewhere?.closeUser(userId, code, reason);
    },
    endAll(code, reason) {
      directory.clear();
      router.send({ type: 'CLOSE_ALL', code, reason });
      elsewhere?.closeAll(code, reason);
    },
  };
}

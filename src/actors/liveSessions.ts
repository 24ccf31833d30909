// What services that change credentials and users need from the live side: close the sockets of a
// user (their credential or rights changed) and forget what the pipeline cached about them. Every
// node holds sockets of its own: the close is said on the bus, and each node closes its own.
import { z } from 'zod';
import type { RouterRef } from './connection.js';
import { defineBusMessage, type Bus } from '../delivery/bus.js';
import type { Directory } from '../delivery/directory.js';

export interface LiveSessions {
  /** Closes every open socket of the user with `code` and drops the cached identity. */
  endUser(userId: number, code: number, reason: string): void;
  /** Closes every socket (dev reset wiped the users they belong to). */
  endAll(code: number, reason: string): void;
}

/** "Close this user's sockets" (revocation decided on another node). */
export const closeUserMessage = defineBusMessage(
  'close-user',
  z.object({ userId: z.number().int(), code: z.number().int(), reason: z.string() }),
  // A revoked credential's sockets close on every node, also one Redis did not reach.
  { durable: true },
);
/** "Close every socket" (development reset on another node). */
export const closeAllMessage = defineBusMessage('close-all', z.object({ code: z.number().int(), reason: z.string() }), { durable: true });

export function createLiveSessions(router: RouterRef, directory: Pick<Directory, 'forget' | 'clear'>, bus: Bus): LiveSessions {
  const here: LiveSessions = {
    endUser(userId, code, reason) {
      directory.forget(userId);
      router.send({ type: 'CLOSE_USER', userId, code, reason });
    },
    endAll(code, reason) {
      directory.clear();
      router.send({ type: 'CLOSE_ALL', code, reason });
    },
  };
  bus.subscribe(closeUserMessage, ({ userId, code, reason }) => here.endUser(userId, code, reason));
  bus.subscribe(closeAllMessage, ({ code, reason }) => here.endAll(code, reason));
  return {
    endUser(userId, code, reason) {
      here.endUser(userId, code, reason);
      bus.publish(closeUserMessage, { userId, code, reason });
    },
    endAll(code, reason) {
      here.endAll(code, reason);
      bus.publish(closeAllMessage, { code, reason });
    },
  };
}

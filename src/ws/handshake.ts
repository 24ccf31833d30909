// Reading a WebSocket upgrade request: what the upgrade needs from it (read while the request is
// valid, before any await) and whether it may proceed at all.
import type uWS from 'uWebSockets.js';
import { Errors, type HubError } from '../errors.js';
import { wsUpgradeQuery } from '../protocol/frames.js';

export interface Handshake {
  key: string;
  protocol: string;
  extensions: string;
  credential: string;
  /** Resume from this id (exclusive); absent: live only. */
  since: number | undefined;
  /** The socket asked for PRESENCE changes in batches (`presence=batched`). */
  presenceBatched: boolean;
}

/** The handshake, or the error the upgrade is refused with. */
export function readHandshake(req: uWS.HttpRequest): Handshake | HubError {
  const key = req.getHeader('sec-websocket-key');
  const protocol = req.getHeader('sec-websocket-protocol');
  const extensions = req.getHeader('sec-websocket-extensions');
  const bearer = /^bearer\s+(\S+)\s*$/i.exec(req.getHeader('authorization'))?.[1];
  const credential = req.getQuery('token') || bearer || '';
  const sinceText = req.getQuery('since') ?? '';
  const presenceText = req.getQuery('presence') ?? '';
  // RFC 6455 §4.1: the handshake says `Connection: Upgrade` and carries a key. uWS upgrades
  // without either, and a `Connection: close` upgrade is closed again by uWS right after the 101.
  if (!/(^|,)\s*upgrade\s*(,|$)/i.test(req.getHeader('connection'))) return Errors.badRequest('a WebSocket handshake says "Connection: Upgrade"');
  if (key === '') return Errors.badRequest('a WebSocket handshake carries a Sec-WebSocket-Key header');
  if (credential === '') return Errors.tokenRequired();
  if (sinceText !== '' && !wsUpgradeQuery.shape.since.safeParse(sinceText).success) return Errors.badRequest('since must be a message id (a whole number)');
  if (presenceText !== '' && !wsUpgradeQuery.shape.presence.safeParse(presenceText).success) return Errors.badRequest('presence must be "batched" (or absent)');
  return { key, protocol, extensions, credential, since: sinceText === '' ? undefined : Number(sinceText), presenceBatched: presenceText === 'batched' };
}

// The origin (`scheme://host[:port]`) a client used to reach the hub, for URLs the hub hands back
// (A2A cards). Behind a trusted proxy (TRUST_PROXY) it is the proxy's, from X-Forwarded-Proto and
// X-Forwarded-Host, so a card read through a balancer points back at the balancer; from anyone
// else those headers are ignored. A Host that is not a host name (or address) and port is refused.
import { Errors } from '../errors.js';
import type { Request } from './context.js';

const HOST = /^(?:[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.?|\[[0-9A-Fa-f:.]+\])(?::\d{1,5})?$/;
const PROTOCOL = /^https?$/;

type TrustFn = (address: string | undefined, hop: number) => boolean;

function firstValue(header: string | string[] | undefined): string | undefined {
  const value = Array.isArray(header) ? header[0] : header;
  return value?.split(',')[0]?.trim() || undefined;
}

export function publicOrigin(req: Request): string {
  const trust = req.app.get('trust proxy fn') as TrustFn | undefined;
  const trusted = trust !== undefined && trust(req.socket.remoteAddress, 0);
  const forwardedHost = trusted ? firstValue(req.headers['x-forwarded-host']) : undefined;
  const host = forwardedHost ?? firstValue(req.headers.host);
  if (host === undefined || !HOST.test(host)) throw Errors.badRequest('the Host header must be a host name or address with an optional port');
  // req.protocol already follows X-Forwarded-Proto only from a trusted proxy.
  const protocol = PROTOCOL.test(req.protocol) ? req.protocol : 'http';
  return `${protocol}://${host.toLowerCase()}`;
}

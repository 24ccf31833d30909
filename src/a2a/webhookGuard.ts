// The SSRF guard of the hub's outbound A2A calls (push-notification webhooks, and the cards and
// endpoints of remote agents registered by URL): a webhook is an http(s) URL without credentials whose
// host is not on a private, loopback, link-local or otherwise internal address, unless
// A2A_ALLOW_PRIVATE_NETWORK=true (the default outside production). The URL is checked when a caller
// registers it, and every address its name resolves to is checked again when the hub connects (the
// connection uses the address that was checked, so a name that changes its answer cannot slip by).
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { BlockList, isIP, type LookupFunction } from 'node:net';
import { Agent } from 'undici';

export const ALLOW_SETTING = 'A2A_ALLOW_PRIVATE_NETWORK';

/**
 * Addresses a webhook may not reach: RFC 6890 special-purpose ranges that are not the public internet.
 * Two lists: a BlockList matches IPv4 addresses against IPv6 rules too (as mapped addresses).
 */
const INTERNAL_V4 = new BlockList();
const INTERNAL_V6 = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const)
  INTERNAL_V4.addSubnet(net, prefix, 'ipv4');
for (const [net, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['64:ff9b::', 96],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
] as const)
  INTERNAL_V6.addSubnet(net, prefix, 'ipv6');

export class WebhookRefused extends Error {}

/** What a refusal names: `webhook` (push notifications) or `card URL` (a remote agent). */
export type GuardedTarget = 'webhook' | 'card URL' | 'agent endpoint';

/** How a refusal names the URL itself. */
const URL_NAME: Record<GuardedTarget, string> = { webhook: 'webhook URL', 'card URL': 'card URL', 'agent endpoint': "agent's endpoint URL" };

function refuseAddress(address: string, target: GuardedTarget): WebhookRefused {
  return new WebhookRefused(`the ${target}'s address ${address} is a private or internal address; set ${ALLOW_SETTING}=true to allow it`);
}

/** `::ffff:a00:1` → `10.0.0.1`. */
function hexMapped(address: string): string | undefined {
  const match = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/i.exec(address);
  if (!match) return undefined;
  const high = parseInt(match[1]!, 16);
  const low = parseInt(match[2]!, 16);
  return `${high >> 8}.${high & 255}.${low >> 8}.${low & 255}`;
}

export function isInternal(address: string): boolean {
  const family = isIP(address);
  if (family === 0) return false;
  if (family === 4) return INTERNAL_V4.check(address, 'ipv4');
  // An IPv4 address written as IPv6 (::ffff:10.0.0.1, ::ffff:a00:1) is checked as the IPv4 address it is.
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)?.[1] ?? hexMapped(address);
  return mapped !== undefined ? INTERNAL_V4.check(mapped, 'ipv4') : INTERNAL_V6.check(address, 'ipv6');
}

/** Refuses (throws WebhookRefused) a URL a webhook may not have; checks a literal address at once. */
export function checkWebhookUrl(text: string, allowPrivate: boolean, target: GuardedTarget = 'webhook'): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new WebhookRefused(`the ${URL_NAME[target]} is not a URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new WebhookRefused(`the ${URL_NAME[target]} must be http or https`);
  if (url.username || url.password)
    throw new WebhookRefused(
      `the ${URL_NAME[target]} must not carry credentials (${target === 'webhook' ? 'use its authentication instead' : 'give them as its credential'})`,
    );
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (!allowPrivate && (isInternal(host) || host === 'localhost' || host.endsWith('.localhost'))) throw refuseAddress(host, target);
  return url;
}

/** A DNS lookup that fails when any address of the name is internal (unless allowed). */
export function guardedLookup(allowPrivate: boolean, target: GuardedTarget = 'webhook'): LookupFunction {
  return (hostname, options, callback) => {
    dnsLookup(hostname, { ...options, all: true }, (err, addresses: LookupAddress[]) => {
      if (err) return callback(err, '', 0);
      const blocked = allowPrivate ? undefined : addresses.find((a) => isInternal(a.address));
      if (blocked) return callback(refuseAddress(blocked.address, target), '', 0);
      if (options.all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, addresses);
      const first = addresses[0];
      if (!first) return callback(new WebhookRefused(`no address for ${hostname}`), '', 0);
      callback(null, first.address, first.family);
    });
  };
}

/** The HTTP client of webhook calls: connections only to checked addresses. */
export function webhookDispatcher(allowPrivate: boolean, connectTimeoutMs: number, target: GuardedTarget = 'webhook'): Agent {
  return new Agent({ connect: { lookup: guardedLookup(allowPrivate, target), timeout: connectTimeoutMs } });
}

import { lookup as systemLookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';

// Which addresses a webhook may be sent to (docs/security.md, API7). A receiver is somewhere on
// the internet; an address of this machine, of its network or of a cloud's metadata service is
// refused, whether the URL names it or a DNS name resolves to it.

/** Ranges never sent to (unless WEBHOOK_ALLOW_PRIVATE=1), with the reason given. */
const REFUSED_RANGES: ReadonlyArray<[network: string, prefix: number, type: 'ipv4' | 'ipv6', reason: string]> = [
  ['0.0.0.0', 8, 'ipv4', 'an unspecified ("this network") address'],
  ['10.0.0.0', 8, 'ipv4', 'a private address'],
  ['100.64.0.0', 10, 'ipv4', 'a carrier-grade NAT address'],
  ['127.0.0.0', 8, 'ipv4', 'a loopback address'],
  ['169.254.0.0', 16, 'ipv4', 'a link-local address (cloud metadata services live there)'],
  ['172.16.0.0', 12, 'ipv4', 'a private address'],
  ['192.0.0.0', 24, 'ipv4', 'a special-purpose address'],
  ['192.0.2.0', 24, 'ipv4', 'a documentation address'],
  ['192.88.99.0', 24, 'ipv4', 'a relay address'],
  ['192.168.0.0', 16, 'ipv4', 'a private address'],
  ['198.18.0.0', 15, 'ipv4', 'a benchmarking address'],
  ['198.51.100.0', 24, 'ipv4', 'a documentation address'],
  ['203.0.113.0', 24, 'ipv4', 'a documentation address'],
  ['224.0.0.0', 4, 'ipv4', 'a multicast address'],
  ['240.0.0.0', 4, 'ipv4', 'a reserved or broadcast address'],
  // ::/96 holds :: (unspecified), ::1 (loopback) and the old IPv4-compatible addresses.
  ['::', 96, 'ipv6', 'an unspecified, loopback or IPv4-compatible address'],
  ['::ffff:0:0', 96, 'ipv6', 'an IPv4-mapped address'],
  ['64:ff9b::', 96, 'ipv6', 'a NAT64 address (it reaches an IPv4 address)'],
  ['64:ff9b:1::', 48, 'ipv6', 'a NAT64 address (it reaches an IPv4 address)'],
  ['100::', 64, 'ipv6', 'a discard address'],
  ['2001::', 32, 'ipv6', 'a Teredo address (it reaches an IPv4 address)'],
  ['2001:db8::', 32, 'ipv6', 'a documentation address'],
  ['2002::', 16, 'ipv6', 'a 6to4 address (it reaches an IPv4 address)'],
  ['fc00::', 7, 'ipv6', 'a unique local (private) address (cloud metadata services live there too)'],
  ['fe80::', 10, 'ipv6', 'a link-local address'],
  ['ff00::', 8, 'ipv6', 'a multicast address'],
];

/**
 * One BlockList per range, so that a refusal can say why. An address is checked against the
 * ranges of its own family only: BlockList would also match an IPv4 address against IPv6 ranges
 * as its IPv4-mapped form (and an IPv4-mapped address against IPv4 ranges).
 */
const REFUSED: ReadonlyArray<[BlockList, 'ipv4' | 'ipv6', string]> = REFUSED_RANGES.map(([network, prefix, type, reason]) => {
  const list = new BlockList();
  list.addSubnet(network, prefix, type);
  return [list, type, reason];
});

/** Why an IP address may not receive webhooks, or undefined when it may. */
export function refusedAddressReason(address: string): string | undefined {
  const type = isIP(address);
  if (type === 0) return 'not an IP address';
  const family = type === 4 ? 'ipv4' : 'ipv6';
  for (const [list, rangeFamily, reason] of REFUSED) if (rangeFamily === family && list.check(address, family)) return reason;
  return undefined;
}

export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

/** Name resolution, as dns.lookup does it (the hosts file, then DNS); tests pass their own. */
export type Resolve = (hostname: string) => Promise<ResolvedAddress[]>;

export const systemResolve: Resolve = async (hostname) => {
  const found = await systemLookup(hostname, { all: true, verbatim: true });
  return found.map(({ address, family }) => ({ address, family: family === 6 ? 6 : 4 }));
};

export interface UrlPolicy {
  /** WEBHOOK_ALLOW_HTTP: plain http:// receivers (local development). */
  allowHttp: boolean;
  /** WEBHOOK_ALLOW_PRIVATE: receivers on loopback and private networks (tests, internal systems). */
  allowPrivate: boolean;
}

/** A URL the policy refuses; `message` says why, for a 422 or a delivery's last_error. */
export class RefusedUrlError extends Error {}

/** A URL's host without the brackets of an IPv6 literal. */
export function hostOf(url: URL): string {
  return url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
}

/** The rules that need no DNS: scheme, no credentials, no fragment. Returns the parsed URL. */
export function checkUrlShape(text: string, policy: UrlPolicy): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new RefusedUrlError('must be an absolute URL such as https://example.com/hooks');
  }
  if (url.protocol !== 'https:' && !(policy.allowHttp && url.protocol === 'http:')) {
    throw new RefusedUrlError(policy.allowHttp ? 'must be an https:// or http:// URL' : 'must be an https:// URL (http:// only with WEBHOOK_ALLOW_HTTP=1)');
  }
  if (url.username !== '' || url.password !== '') throw new RefusedUrlError('must not carry a user name or password');
  if (url.hash !== '') throw new RefusedUrlError('must not have a #fragment');
  if (hostOf(url) === '') throw new RefusedUrlError('must name a host');
  return url;
}

/**
 * The addresses a URL's host stands for, every one of them allowed, or RefusedUrlError. An IP
 * literal is checked as it is; a name is resolved, and refused if any address it resolves to is
 * refused (a receiver cannot be reached "sometimes" inside the network).
 */
export async function resolveAllowedAddresses(url: URL, policy: UrlPolicy, resolve: Resolve): Promise<ResolvedAddress[]> {
  const host = hostOf(url);
  const literal = isIP(host);
  let addresses: ResolvedAddress[];
  if (literal !== 0) {
    addresses = [{ address: host, family: literal === 6 ? 6 : 4 }];
  } else {
    try {
      addresses = await resolve(host);
    } catch {
      throw new RefusedUrlError(`host ${host} could not be resolved`);
    }
    if (addresses.length === 0) throw new RefusedUrlError(`host ${host} could not be resolved`);
  }
  if (!policy.allowPrivate) {
    for (const { address } of addresses) {
      const reason = refusedAddressReason(address);
      if (reason !== undefined) {
        const named = literal === 0 ? `host ${host} resolves to ${address}, ` : `${address} is `;
        throw new RefusedUrlError(`${named}${reason}; webhooks go to public addresses only (WEBHOOK_ALLOW_PRIVATE=1 allows it)`);
      }
    }
  }
  return addresses;
}

import { lookup as systemLookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

// Which addresses a webhook may be sent to (docs/security.md, API7). A receiver is somewhere on
// the internet; an address of this machine, of its network or of a cloud's metadata service is
// refused, whether the URL names it or a DNS name resolves to it. The ranges are ipaddr.js's
// (IANA's special-purpose registries): only what it calls `unicast` is public.

/** Why each of ipaddr.js's ranges is refused; a range missing here is named as it is. */
const RANGE_REASONS: Readonly<Record<string, string>> = {
  unspecified: 'an unspecified address',
  broadcast: 'a broadcast address',
  multicast: 'a multicast address',
  linkLocal: 'a link-local address (cloud metadata services live there)',
  loopback: 'a loopback address',
  carrierGradeNat: 'a carrier-grade NAT address',
  private: 'a private address',
  reserved: 'a reserved or documentation address',
  benchmarking: 'a benchmarking address',
  uniqueLocal: 'a unique local (private) address (cloud metadata services live there too)',
  deprecatedSiteLocal: 'a site-local (private) address',
  discard: 'a discard address',
};

/**
 * IPv6 addresses that carry an IPv4 address the packets end up at: they are judged by that
 * address. NAT64's local-use prefix may embed it at any of RFC 6052's positions past /48, so
 * every position is judged there (a false refusal is possible, a false pass is not).
 */
const IPV4_CARRIERS: ReadonlyArray<{ range: [ipaddr.IPv6, number]; name: string; embedded: (bytes: number[]) => number[][] }> = [
  { range: ipaddr.IPv6.parseCIDR('::ffff:0:0/96'), name: 'an IPv4-mapped address', embedded: (b) => [b.slice(12)] },
  { range: ipaddr.IPv6.parseCIDR('::ffff:0:0:0/96'), name: 'an IPv4-translated address', embedded: (b) => [b.slice(12)] },
  // ::/96 also holds :: and ::1, judged as such below.
  { range: ipaddr.IPv6.parseCIDR('::/96'), name: 'an IPv4-compatible address', embedded: (b) => [b.slice(12)] },
  { range: ipaddr.IPv6.parseCIDR('64:ff9b::/96'), name: 'a NAT64 address', embedded: (b) => [b.slice(12)] },
  {
    range: ipaddr.IPv6.parseCIDR('64:ff9b:1::/48'),
    name: 'a local-use NAT64 address',
    // RFC 6052's /96, /64, /56 and /48 positions (byte 8 is always skipped).
    embedded: (b) => [b.slice(12), b.slice(9, 13), [b[7], ...b.slice(9, 12)], [...b.slice(6, 8), ...b.slice(9, 11)]] as number[][],
  },
  { range: ipaddr.IPv6.parseCIDR('2002::/16'), name: 'a 6to4 address', embedded: (b) => [b.slice(2, 6)] },
  // Teredo: the server's address, and the client's (stored inverted).
  {
    range: ipaddr.IPv6.parseCIDR('2001::/32'),
    name: 'a Teredo address',
    embedded: (b) => [b.slice(4, 8), b.slice(12).map((byte) => byte ^ 0xff)],
  },
];

/** Why an IP address may not receive webhooks, or undefined when it may. */
export function refusedAddressReason(address: string): string | undefined {
  // node:net's parser first: ipaddr.js would also read forms such as 0x7f.1 that no resolver returns.
  if (isIP(address) === 0) return 'not an IP address';
  const parsed = ipaddr.parse(address);
  return parsed.kind() === 'ipv4' ? refusedIPv4Reason(parsed as ipaddr.IPv4) : refusedIPv6Reason(parsed as ipaddr.IPv6);
}

function refusedIPv4Reason(address: ipaddr.IPv4): string | undefined {
  const range: string = address.range();
  return range === 'unicast' ? undefined : (RANGE_REASONS[range] ?? `a special-purpose address (${range})`);
}

function refusedIPv6Reason(address: ipaddr.IPv6): string | undefined {
  const range: string = address.range();
  if (range === 'unspecified' || range === 'loopback') return RANGE_REASONS[range];
  const carrier = IPV4_CARRIERS.find((candidate) => address.match(candidate.range));
  if (carrier) {
    for (const bytes of carrier.embedded(address.toByteArray())) {
      const embedded = new ipaddr.IPv4(bytes);
      const reason = refusedIPv4Reason(embedded);
      if (reason !== undefined) return `${carrier.name} of ${embedded.toString()}, ${reason}`;
    }
    return undefined;
  }
  return range === 'unicast' ? undefined : (RANGE_REASONS[range] ?? `a special-purpose address (${range})`);
}

/** `localhost` and its subdomains are this machine whatever DNS says (RFC 6761). */
function isLocalhostName(host: string): boolean {
  const name = host.toLowerCase().replace(/\.$/, '');
  return name === 'localhost' || name.endsWith('.localhost');
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
function hostOf(url: URL): string {
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
    throw new RefusedUrlError(
      policy.allowHttp ? 'must be an https:// or http:// URL' : 'must be an https:// URL (http:// only with WEBHOOK_ALLOW_HTTP=1)',
    );
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
    if (!policy.allowPrivate && isLocalhostName(host)) {
      throw new RefusedUrlError(
        `host ${host} is a loopback name; webhooks go to public addresses only (WEBHOOK_ALLOW_PRIVATE=1 allows it)`,
      );
    }
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

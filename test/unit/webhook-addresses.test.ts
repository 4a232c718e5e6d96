import {
  checkUrlShape,
  RefusedUrlError,
  type Resolve,
  refusedAddressReason,
  resolveAllowedAddresses,
  systemResolve,
} from '../../src/webhooks/addresses';
import { retryDelayMs } from '../../src/webhooks/worker';

const strict = { allowHttp: false, allowPrivate: false };

describe('refusedAddressReason', () => {
  it.each([
    ['127.0.0.1', 'a loopback address'],
    ['127.255.255.254', 'a loopback address'],
    ['10.0.0.1', 'a private address'],
    ['172.31.255.255', 'a private address'],
    ['192.168.1.1', 'a private address'],
    ['169.254.169.254', 'a link-local address (cloud metadata services live there)'],
    ['100.64.0.1', 'a carrier-grade NAT address'],
    ['100.100.100.200', 'a carrier-grade NAT address'],
    ['0.0.0.0', 'an unspecified address'],
    ['0.1.2.3', 'an unspecified address'],
    ['224.0.0.1', 'a multicast address'],
    ['255.255.255.255', 'a broadcast address'],
    ['240.0.0.1', 'a reserved or documentation address'],
    ['192.0.2.10', 'a reserved or documentation address'],
    ['198.18.0.1', 'a reserved or documentation address'],
    ['::', 'an unspecified address'],
    ['::1', 'a loopback address'],
    ['fe80::1', 'a link-local address (cloud metadata services live there)'],
    ['fe80::1%eth0', 'a link-local address (cloud metadata services live there)'],
    ['fec0::1', 'a site-local (private) address'],
    ['fd00:ec2::254', 'a unique local (private) address (cloud metadata services live there too)'],
    ['ff02::1', 'a multicast address'],
    ['2001:db8::1', 'a reserved or documentation address'],
    ['100::1', 'a discard address'],
    // IPv6 addresses that carry an IPv4 address are judged by it.
    ['::ffff:7f00:1', 'an IPv4-mapped address of 127.0.0.1, a loopback address'],
    ['::ffff:169.254.169.254', 'an IPv4-mapped address of 169.254.169.254, a link-local address (cloud metadata services live there)'],
    ['::ffff:0:7f00:1', 'an IPv4-translated address of 127.0.0.1, a loopback address'],
    ['::ffff:0:a00:1', 'an IPv4-translated address of 10.0.0.1, a private address'],
    ['::7f00:1', 'an IPv4-compatible address of 127.0.0.1, a loopback address'],
    ['::a9fe:a9fe', 'an IPv4-compatible address of 169.254.169.254, a link-local address (cloud metadata services live there)'],
    ['64:ff9b::a9fe:a9fe', 'a NAT64 address of 169.254.169.254, a link-local address (cloud metadata services live there)'],
    ['64:ff9b::7f00:1', 'a NAT64 address of 127.0.0.1, a loopback address'],
    ['64:ff9b:1::a00:1', 'a local-use NAT64 address of 10.0.0.1, a private address'],
    ['2002:7f00:1::', 'a 6to4 address of 127.0.0.1, a loopback address'],
    ['2002:c0a8:101::1', 'a 6to4 address of 192.168.1.1, a private address'],
    // Teredo: server 65.54.227.120, client 127.0.0.1 (stored inverted); and a server inside the network.
    ['2001:0:4136:e378:8000:63bf:80ff:fffe', 'a Teredo address of 127.0.0.1, a loopback address'],
    ['2001:0:a00:1:8000:63bf:f7f7:f7f7', 'a Teredo address of 10.0.0.1, a private address'],
  ])('refuses %s: %s', (address, reason) => {
    expect(refusedAddressReason(address)).toBe(reason);
  });

  it.each([
    '93.184.215.14',
    '8.8.8.8',
    '172.32.0.1',
    '100.128.0.1',
    '2606:4700:4700::1111',
    '2a00:1450:4001:80b::200e',
    // The same wrappers around public IPv4 addresses reach the internet: allowed.
    '::ffff:8.8.8.8',
    '::ffff:0:808:808',
    '64:ff9b::808:808',
    '64:ff9b:1:808:8:808:808:808',
    '2002:808:808::1',
    '2001:0:4136:e378:8000:63bf:f7f7:f7f7',
  ])('allows the public address %s', (address) => {
    expect(refusedAddressReason(address)).toBeUndefined();
  });

  it("refuses a local-use NAT64 address with 127.0.0.1 at any of RFC 6052's positions (the prefix length is the network's choice)", () => {
    for (const address of [
      '64:ff9b:1:7f00:0:100:808:808',
      '64:ff9b:1:87f:0:1:808:808',
      '64:ff9b:1:808:7f:0:108:808',
      '64:ff9b:1:808:8:808:7f00:1',
    ]) {
      expect(refusedAddressReason(address)).toMatch(/^a local-use NAT64 address of /);
    }
    expect(refusedAddressReason('64:ff9b:1:808:8:808:7f00:1')).toBe('a local-use NAT64 address of 127.0.0.1, a loopback address');
  });

  it('refuses what is not an IP address, and the forms only a URL parser reads', () => {
    expect(refusedAddressReason('example.com')).toBe('not an IP address');
    expect(refusedAddressReason('0x7f.0.0.1')).toBe('not an IP address');
    expect(refusedAddressReason('2130706433')).toBe('not an IP address');
  });
});

describe('every spelling of an address inside the network, as a URL (the outside review)', () => {
  const refusal = async (url: string, resolve: Resolve = systemResolve) => {
    try {
      await resolveAllowedAddresses(
        checkUrlShape(url, { allowHttp: true, allowPrivate: false }),
        { allowHttp: true, allowPrivate: false },
        resolve,
      );
    } catch (error) {
      if (error instanceof RefusedUrlError) return error.message;
      throw error;
    }
    return 'allowed';
  };
  const LOOPBACK = /^127\.0\.0\.1 is a loopback address; webhooks go to public addresses only/;

  it.each([
    ['decimal', 'http://2130706433/', LOOPBACK],
    ['octal', 'https://0177.0.0.1/', LOOPBACK],
    ['hex', 'https://0x7f.0.0.1/', LOOPBACK],
    ['hex, one number', 'https://0x7f000001/', LOOPBACK],
    ['short IPv4', 'https://127.1/', LOOPBACK],
    ['trailing dot', 'https://127.0.0.1./', LOOPBACK],
    ['percent-encoded', 'https://%31%32%37.0.0.1/', LOOPBACK],
    ['full-width dots', 'https://127\u30020\u30020\u30021/', LOOPBACK],
    ['IPv4-mapped', 'https://[::ffff:127.0.0.1]/', /^::ffff:7f00:1 is an IPv4-mapped address of 127\.0\.0\.1, a loopback address/],
    ['IPv4-mapped, long form', 'https://[0:0:0:0:0:ffff:7f00:1]/', /^::ffff:7f00:1 is an IPv4-mapped address of 127\.0\.0\.1/],
    [
      'IPv4-translated',
      'https://[::ffff:0:127.0.0.1]/',
      /^::ffff:0:7f00:1 is an IPv4-translated address of 127\.0\.0\.1, a loopback address/,
    ],
    ['IPv4-compatible', 'https://[::127.0.0.1]/', /^::7f00:1 is an IPv4-compatible address of 127\.0\.0\.1, a loopback address/],
    ['NAT64', 'https://[64:ff9b::169.254.169.254]/', /^64:ff9b::a9fe:a9fe is a NAT64 address of 169\.254\.169\.254, a link-local address/],
    [
      'NAT64, local use',
      'https://[64:ff9b:1::10.0.0.1]/',
      /^64:ff9b:1::a00:1 is a local-use NAT64 address of 10\.0\.0\.1, a private address/,
    ],
    ['6to4', 'https://[2002:7f00:1::]/', /^2002:7f00:1:: is a 6to4 address of 127\.0\.0\.1, a loopback address/],
    ['Teredo', 'https://[2001:0:4136:e378:8000:63bf:80ff:fffe]/', /is a Teredo address of 127\.0\.0\.1, a loopback address/],
    ['site-local', 'https://[fec0::1]/', /^fec0::1 is a site-local \(private\) address/],
    ['IPv6 loopback', 'https://[::1]/', /^::1 is a loopback address/],
    ['link-local with a zone id', 'https://[fe80::1%25eth0]/', /^must be an absolute URL/],
    ['unspecified', 'https://0.0.0.0/', /^0\.0\.0\.0 is an unspecified address/],
    ['userinfo', 'https://user@127.0.0.1/', /^must not carry a user name or password$/],
    ['userinfo before a public host', 'https://127.0.0.1@93.184.215.14/', /^must not carry a user name or password$/],
    ['localhost', 'https://localhost/', /^host localhost is a loopback name/],
    ['localhost, trailing dot', 'https://localhost./', /^host localhost\. is a loopback name/],
    ['a subdomain of localhost', 'https://hooks.LOCALHOST/', /^host hooks\.localhost is a loopback name/],
  ])('refuses the %s spelling %s', async (_spelling, url, message) => {
    expect(await refusal(url)).toMatch(message);
  });

  it('resolves a name and refuses it if it resolves to an address inside the network, with a trailing dot too', async () => {
    const resolved: string[] = [];
    const resolve: Resolve = async (hostname) => {
      resolved.push(hostname);
      return [{ address: '::ffff:0:a9fe:a9fe', family: 6 }];
    };

    expect(await refusal('https://metadata.example.com./', resolve)).toBe(
      'host metadata.example.com. resolves to ::ffff:0:a9fe:a9fe, an IPv4-translated address of 169.254.169.254, a link-local address (cloud metadata services live there); webhooks go to public addresses only (WEBHOOK_ALLOW_PRIVATE=1 allows it)',
    );
    expect(resolved).toEqual(['metadata.example.com.']);
  });
});

describe('checkUrlShape', () => {
  it('takes https:// URLs, and http:// only when allowed', () => {
    expect(checkUrlShape('https://hooks.example.com/in', strict).hostname).toBe('hooks.example.com');
    expect(() => checkUrlShape('http://hooks.example.com/in', strict)).toThrow(
      new RefusedUrlError('must be an https:// URL (http:// only with WEBHOOK_ALLOW_HTTP=1)'),
    );
    expect(checkUrlShape('http://hooks.example.com/in', { ...strict, allowHttp: true }).protocol).toBe('http:');
  });

  it.each([
    ['https://a:b@hooks.example.com/', 'must not carry a user name or password'],
    ['https://hooks.example.com/#x', 'must not have a #fragment'],
    ['/relative', 'must be an absolute URL such as https://example.com/hooks'],
    ['file:///etc/passwd', 'must be an https:// URL (http:// only with WEBHOOK_ALLOW_HTTP=1)'],
  ])('refuses %s', (url, message) => {
    expect(() => checkUrlShape(url, strict)).toThrow(new RefusedUrlError(message));
  });
});

describe('resolveAllowedAddresses', () => {
  const resolving = (addresses: string[]) => async () =>
    addresses.map((address) => ({ address, family: address.includes(':') ? (6 as const) : (4 as const) }));

  it('refuses a name if any address it resolves to is refused', async () => {
    const url = new URL('https://rebind.example.com/');

    await expect(resolveAllowedAddresses(url, strict, resolving(['93.184.215.14', '10.0.0.5']))).rejects.toThrow(
      'host rebind.example.com resolves to 10.0.0.5, a private address; webhooks go to public addresses only (WEBHOOK_ALLOW_PRIVATE=1 allows it)',
    );
    await expect(resolveAllowedAddresses(url, strict, resolving(['93.184.215.14']))).resolves.toEqual([
      { address: '93.184.215.14', family: 4 },
    ]);
  });

  it('allows private addresses with WEBHOOK_ALLOW_PRIVATE, and says when a name does not resolve', async () => {
    const url = new URL('https://intranet.example.com/');

    await expect(resolveAllowedAddresses(url, { ...strict, allowPrivate: true }, resolving(['10.0.0.5']))).resolves.toEqual([
      { address: '10.0.0.5', family: 4 },
    ]);
    await expect(resolveAllowedAddresses(url, strict, resolving([]))).rejects.toThrow('host intranet.example.com could not be resolved');
    await expect(resolveAllowedAddresses(url, strict, () => Promise.reject(new Error('ENOTFOUND')))).rejects.toThrow(
      'could not be resolved',
    );
  });
});

describe('retryDelayMs', () => {
  it('doubles from 5 s up to 6 h, with half of each wait random', () => {
    expect([1, 2, 3, 4].map((attempts) => retryDelayMs(attempts, () => 0))).toEqual([2500, 5000, 10_000, 20_000]);
    expect([1, 2, 3, 4].map((attempts) => retryDelayMs(attempts, () => 1))).toEqual([5000, 10_000, 20_000, 40_000]);
    expect(retryDelayMs(30, () => 1)).toBe(6 * 3600 * 1000);
    expect(retryDelayMs(30, () => 0)).toBe(3 * 3600 * 1000);
  });

  it('spreads over about 20 attempts in the 3-day window', () => {
    let elapsed = 0;
    let attempts = 0;
    while (elapsed < 3 * 24 * 3600 * 1000) elapsed += retryDelayMs(++attempts, () => 0.5);
    expect(attempts).toBeGreaterThanOrEqual(15);
    expect(attempts).toBeLessThanOrEqual(30);
  });
});

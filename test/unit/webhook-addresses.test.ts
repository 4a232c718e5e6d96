import { checkUrlShape, RefusedUrlError, refusedAddressReason, resolveAllowedAddresses } from '../../src/webhooks/addresses';
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
    ['0.0.0.0', 'an unspecified ("this network") address'],
    ['224.0.0.1', 'a multicast address'],
    ['255.255.255.255', 'a reserved or broadcast address'],
    ['::', 'an unspecified, loopback or IPv4-compatible address'],
    ['::1', 'an unspecified, loopback or IPv4-compatible address'],
    ['::ffff:169.254.169.254', 'an IPv4-mapped address'],
    ['::ffff:8.8.8.8', 'an IPv4-mapped address'],
    ['64:ff9b::a9fe:a9fe', 'a NAT64 address (it reaches an IPv4 address)'],
    ['fe80::1', 'a link-local address'],
    ['fd00:ec2::254', 'a unique local (private) address (cloud metadata services live there too)'],
    ['2002:7f00:1::', 'a 6to4 address (it reaches an IPv4 address)'],
  ])('refuses %s: %s', (address, reason) => {
    expect(refusedAddressReason(address)).toBe(reason);
  });

  it.each(['93.184.215.14', '8.8.8.8', '172.32.0.1', '100.128.0.1', '2606:4700:4700::1111', '2a00:1450:4001:80b::200e'])('allows the public address %s', (address) => {
    expect(refusedAddressReason(address)).toBeUndefined();
  });
});

describe('checkUrlShape', () => {
  it('takes https:// URLs, and http:// only when allowed', () => {
    expect(checkUrlShape('https://hooks.example.com/in', strict).hostname).toBe('hooks.example.com');
    expect(() => checkUrlShape('http://hooks.example.com/in', strict)).toThrow(new RefusedUrlError('must be an https:// URL (http:// only with WEBHOOK_ALLOW_HTTP=1)'));
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
  const resolving = (addresses: string[]) => async () => addresses.map((address) => ({ address, family: address.includes(':') ? (6 as const) : (4 as const) }));

  it('refuses a name if any address it resolves to is refused', async () => {
    const url = new URL('https://rebind.example.com/');

    await expect(resolveAllowedAddresses(url, strict, resolving(['93.184.215.14', '10.0.0.5']))).rejects.toThrow(
      'host rebind.example.com resolves to 10.0.0.5, a private address; webhooks go to public addresses only (WEBHOOK_ALLOW_PRIVATE=1 allows it)',
    );
    await expect(resolveAllowedAddresses(url, strict, resolving(['93.184.215.14']))).resolves.toEqual([{ address: '93.184.215.14', family: 4 }]);
  });

  it('allows private addresses with WEBHOOK_ALLOW_PRIVATE, and says when a name does not resolve', async () => {
    const url = new URL('https://intranet.example.com/');

    await expect(resolveAllowedAddresses(url, { ...strict, allowPrivate: true }, resolving(['10.0.0.5']))).resolves.toEqual([{ address: '10.0.0.5', family: 4 }]);
    await expect(resolveAllowedAddresses(url, strict, resolving([]))).rejects.toThrow('host intranet.example.com could not be resolved');
    await expect(resolveAllowedAddresses(url, strict, () => Promise.reject(new Error('ENOTFOUND')))).rejects.toThrow('could not be resolved');
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

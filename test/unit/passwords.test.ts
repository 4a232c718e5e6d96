import { hashPassword, verifyPassword } from '../../src/users/passwords';

describe('password hashing', () => {
  it('stores scrypt parameters and a salt, and verifies only the right password', async () => {
    const hash = await hashPassword('correct horse battery staple');
    const again = await hashPassword('correct horse battery staple');

    expect(hash).toMatch(/^scrypt\$32768\$8\$1\$[A-Za-z0-9+/=]+\$[A-Za-z0-9+/=]+$/);
    expect(again).not.toBe(hash);
    expect(await verifyPassword('correct horse battery staple', hash)).toBe(true);
    expect(await verifyPassword('correct horse battery stapler', hash)).toBe(false);
  });

  it('refuses hashes it cannot read', async () => {
    expect(await verifyPassword('x', 'md5$abc')).toBe(false);
    expect(await verifyPassword('x', '')).toBe(false);
  });
});

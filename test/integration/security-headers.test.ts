import request from 'supertest';
import { testDialects } from '../helpers/databases';
import { createUser } from '../helpers/factories';
import { useTestApp } from '../helpers/test-app';

describe.each(testDialects())('security headers and CORS on %s', (dialect) => {
  describe('by default', () => {
    const t = useTestApp(dialect);

    it('sends no-store, nosniff, a deny-all CSP and no framework banner', async () => {
      const user = await createUser(t, 'employee');

      for (const res of [
        await request(t.app).get(t.api('/employees/me')).auth(user.token, { type: 'bearer' }),
        await request(t.app).get(t.api('/nope')),
      ]) {
        expect(res.headers['cache-control']).toBe('no-store');
        expect(res.headers['x-content-type-options']).toBe('nosniff');
        expect(res.headers['content-security-policy']).toBe("default-src 'none';frame-ancestors 'none'");
        expect(res.headers['x-frame-options']).toBe('SAMEORIGIN');
        expect(res.headers['x-powered-by']).toBeUndefined();
      }
    });

    it('grants no cross-origin access: no Access-Control-* fields, even on a preflight', async () => {
      const preflight = await request(t.app)
        .options(t.api('/employees/me'))
        .set('Origin', 'https://evil.example')
        .set('Access-Control-Request-Method', 'GET');
      const actual = await request(t.app).get(t.api('/echo')).set('Origin', 'https://evil.example');

      expect(preflight.headers['access-control-allow-origin']).toBeUndefined();
      expect(actual.headers['access-control-allow-origin']).toBeUndefined();
    });
  });

  describe('with CORS_ORIGINS', () => {
    const t = useTestApp(dialect, { env: { CORS_ORIGINS: 'https://hr.example.com,https://portal.example.com' } });

    it('answers a preflight from a listed origin, allowing every method the API uses and its headers', async () => {
      const res = await request(t.app)
        .options(t.api('/employees/42'))
        .set('Origin', 'https://hr.example.com')
        .set('Access-Control-Request-Method', 'PATCH')
        .set('Access-Control-Request-Headers', 'authorization, content-type, idempotency-key');

      expect(res.status).toBe(204);
      expect(res.headers['access-control-allow-origin']).toBe('https://hr.example.com');
      expect(res.headers['access-control-allow-methods']).toBe('GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS');
      expect(res.headers['access-control-allow-headers']).toBe(
        'Authorization, Content-Type, Idempotency-Key, X-Request-Id, If-Match, If-None-Match',
      );
    });

    it('exposes the headers a browser client needs on actual responses', async () => {
      const res = await request(t.app).get(t.api('/echo')).set('Origin', 'https://portal.example.com');

      expect(res.headers['access-control-allow-origin']).toBe('https://portal.example.com');
      expect(res.headers['access-control-expose-headers']).toContain('X-Request-Id');
      expect(res.headers['access-control-expose-headers']).toContain('Location');
      expect(res.headers['access-control-expose-headers']).toContain('ETag');
    });

    it('ignores origins that are not listed', async () => {
      const res = await request(t.app).get(t.api('/echo')).set('Origin', 'https://hr.example.com.evil.example');

      expect(res.headers['access-control-allow-origin']).toBeUndefined();
    });
  });
});

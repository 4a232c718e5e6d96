import request from 'supertest';
import { testDialects } from '../helpers/databases';
import { expectProblem } from '../helpers/problem';
import { useTestApp } from '../helpers/test-app';

describe.each(testDialects())('GET /echo on %s', (dialect) => {
  const t = useTestApp(dialect);

  it('answers "Echo <random integer>" as text/plain without a token when self-hosted', async () => {
    const first = await request(t.app).get(t.api('/echo'));
    const second = await request(t.app).get(t.api('/echo'));

    expect(first.status).toBe(200);
    expect(first.headers['content-type']).toBe('text/plain; charset=utf-8');
    expect(first.headers['cache-control']).toBe('no-store');
    expect(first.text).toMatch(/^Echo \d+$/);
    expect(second.text).toMatch(/^Echo \d+$/);
    expect(first.text).not.toBe(second.text);
  });

  it('answers HEAD like GET, without a body', async () => {
    const res = await request(t.app).head(t.api('/echo'));

    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('text/plain; charset=utf-8');
    expect(res.text).toBeUndefined();
  });

  it('answers 405 with Allow for another method', async () => {
    const res = await request(t.app).post(t.api('/echo'));

    expectProblem(res, 405, 'method_not_allowed');
    expect(res.headers.allow).toBe('GET, HEAD');
  });

  it('lists the allowed methods for OPTIONS', async () => {
    const res = await request(t.app).options(t.api('/echo'));

    expect(res.status).toBe(204);
    expect(res.headers.allow).toBe('GET, HEAD, OPTIONS');
  });

  it("returns the caller's sane X-Request-Id and replaces an unsafe one", async () => {
    const sane = await request(t.app).get(t.api('/echo')).set('X-Request-Id', 'client-123.abc');
    const unsafe = await request(t.app).get(t.api('/echo')).set('X-Request-Id', 'bad id <script>');

    expect(sane.headers['x-request-id']).toBe('client-123.abc');
    expect(unsafe.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });
});

/** Text that must never reach a client (docs/api.md, "Errors"): SQL, driver messages, stacks, paths. */
const LEAKS = [
  /select |insert |update |delete from/i,
  /sqlite|mysql|mariadb|knex/i,
  /\bat .*\(.*:\d+:\d+\)/,
  /node_modules|\/src\/|\.ts:\d+/,
  /ER_[A-Z_]+|SQLITE_[A-Z_]+/,
];

/** What the checks read of a response: supertest's, or a raw node:http one. */
interface ResponseLike {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

/**
 * Asserts a problem+json response (docs/api.md, "Errors"): status, code, the request id matching the
 * header, the IceHrm `error` member, and no leaked internals. Returns the body for more checks.
 */
export function expectProblem(res: ResponseLike, status: number, code: string): Record<string, any> {
  expect(res.status).toBe(status);
  const body = expectAnyProblem(res);
  expect(body.code).toBe(code);
  return body;
}

/** Asserts that a response is a problem+json body (docs/api.md, "Errors"), whatever its status and code. */
export function expectAnyProblem(res: ResponseLike): Record<string, any> {
  const { status } = res;
  expect(res.headers['content-type']).toBe('application/problem+json; charset=utf-8');
  const body = JSON.parse(res.text) as Record<string, any>;
  expect(body).toMatchObject({
    type: `urn:hrm:problem:${body.code}`,
    status,
    code: expect.stringMatching(/^[a-z_]+$/),
    request_id: res.headers['x-request-id'],
  });
  expect(typeof body.title).toBe('string');
  expect(typeof body.detail).toBe('string');
  expect(body.error).toEqual([[{ code: status, message: expect.stringContaining(body.title) }]]);
  for (const leak of LEAKS) expect(res.text).not.toMatch(leak);
  return body;
}

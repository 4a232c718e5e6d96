import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { TestUser } from './factories';
import type { TestApp } from './test-app';

// For the suites that replay thousands of requests (the published vectors). Supertest opens a
// connection for each request, starts and stops a listener whenever none is in flight, and builds
// a superagent request each time; here the app listens once and node:http keeps connections alive.

/** An answer: its status and its JSON body, parsed as supertest parses one. */
export interface ReplayResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: any;
}

export interface ReplayClient {
  get(path: string): Promise<ReplayResponse>;
  post(path: string, body: object): Promise<ReplayResponse>;
  put(path: string, body: object): Promise<ReplayResponse>;
  patch(path: string, body: object): Promise<ReplayResponse>;
}

/**
 * Requests as a user with their bearer token, as asUser sends them, to the app listening from a
 * beforeAll hook of the enclosing describe (declare it after useTestApp): the same app, with the
 * same check of every answer against the OpenAPI document, over kept-alive connections.
 */
export function useReplayClient(t: TestApp): (user: TestUser) => ReplayClient {
  const agent = new http.Agent({ keepAlive: true });
  let port = 0;
  beforeAll(async () => {
    await new Promise<void>((resolve) => t.app.listen(0, '127.0.0.1', resolve));
    port = (t.app.address() as AddressInfo).port;
  });
  // The app's close (useTestApp) ends the connections; this drops what the agent still holds.
  afterAll(() => agent.destroy());

  const send = (user: TestUser, method: string, path: string, body?: object) =>
    new Promise<ReplayResponse>((resolve, reject) => {
      const text = body === undefined ? undefined : JSON.stringify(body);
      const headers: http.OutgoingHttpHeaders = { Authorization: `Bearer ${user.token}` };
      if (text !== undefined) Object.assign(headers, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text) });
      const req = http.request({ host: '127.0.0.1', port, method, path: t.api(path), headers, agent }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('error', reject);
        res.on('end', () => {
          const answer = Buffer.concat(chunks).toString('utf8');
          try {
            const json = /[/+]json\b/.test(res.headers['content-type'] ?? '') && answer !== '';
            resolve({ status: res.statusCode ?? 0, headers: res.headers, body: json ? JSON.parse(answer) : {} });
          } catch (error) {
            reject(error as Error);
          }
        });
      });
      req.on('error', reject);
      req.end(text);
    });

  return (user) => ({
    get: (path) => send(user, 'GET', path),
    post: (path, body) => send(user, 'POST', path, body),
    put: (path, body) => send(user, 'PUT', path, body),
    patch: (path, body) => send(user, 'PATCH', path, body),
  });
}

/** Runs `work` on every item, `atOnce` at a time: a new one starts as soon as one ends. */
export async function eachAtOnce<T>(items: readonly T[], atOnce: number, work: (item: T, index: number) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      await work(items[index]!, index);
    }
  };
  await Promise.all(Array.from({ length: Math.min(atOnce, items.length) }, worker));
}

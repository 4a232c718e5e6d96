import autocannon from 'autocannon';
import type { Fixture } from './fixture';
import type { FixedScenario, Scenario } from './scenarios';

/** What autocannon sends: one request repeated, or `requests` in turn, on every connection. */
export interface Target {
  url: string;
  method: FixedScenario['method'];
  headers: Record<string, string>;
  body?: string;
  requests?: autocannon.Request[];
}

export interface LoadShape {
  connections: number;
  warmupSeconds: number;
  durationSeconds: number;
}

export interface Measurement {
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  /** Non-2xx responses plus connection errors and timeouts: any makes the figures invalid. */
  failures: number;
  /** The server's CPU time per request in the measured run, in µs (NaN when not read). */
  serverCpuMicros: number;
}

export function scenarioTarget(scenario: Scenario, apiUrl: string, fixture: Fixture): Target {
  const headers: Record<string, string> = 'headers' in scenario ? { ...scenario.headers } : {};
  if (scenario.needsToken) headers.authorization = `Bearer ${fixture.token}`;
  const basePath = new URL(apiUrl).pathname;
  const perConnection = tokenPerConnection(fixture.userTokens);
  const authorize = (raw: autocannon.Request, context: Record<string, unknown>): autocannon.Request =>
    scenario.tokenPerConnection ? perConnection(raw, context) : raw;
  if ('requests' in scenario) {
    headers['content-type'] = 'application/json';
    const requests = scenario.requests(fixture).map((request): autocannon.Request => ({
      method: request.method,
      setupRequest: (raw, context) => {
        const { path, body } = request.next(context as Record<string, unknown>);
        const next = { ...raw, method: request.method, path: basePath + path, body: body === undefined ? undefined : JSON.stringify(body) };
        return authorize(next, context as Record<string, unknown>);
      },
      onResponse: (status, _body, context) => request.onResponse?.(status, context as Record<string, unknown>),
    }));
    return { url: apiUrl, method: 'GET', headers, requests };
  }
  const path = typeof scenario.path === 'string' ? scenario.path : scenario.path(fixture);
  const body = scenario.body === undefined ? undefined : JSON.stringify(scenario.body);
  if (body !== undefined) headers['content-type'] = 'application/json';
  if (scenario.tokenPerConnection) {
    const requests: autocannon.Request[] = [
      {
        method: scenario.method,
        path: basePath + path,
        body,
        setupRequest: (raw, context) => authorize(raw, context as Record<string, unknown>),
      },
    ];
    return { url: apiUrl, method: scenario.method, headers, requests };
  }
  return { url: apiUrl + path, method: scenario.method, headers, body };
}

/**
 * Sets a token of its own on each connection's requests: the first request of a connection takes
 * the next of `tokens`, and its later requests keep it (autocannon's context is per connection).
 */
export function tokenPerConnection(tokens: string[]): (raw: autocannon.Request, context: object) => autocannon.Request {
  let connections = 0;
  return (raw, context) => {
    const connection = context as { token?: string };
    connection.token ??= tokens[connections++ % tokens.length];
    return { ...raw, headers: { ...raw.headers, authorization: `Bearer ${connection.token}` } };
  };
}

/**
 * Warms up (not counted), then measures. `serverCpuSeconds` reads the server's CPU time so far,
 * before and after the measured run.
 */
export async function measure(target: Target, shape: LoadShape, serverCpuSeconds: () => number = () => Number.NaN): Promise<Measurement> {
  if (shape.warmupSeconds > 0) await fire(target, shape.connections, shape.warmupSeconds);
  const cpuBefore = serverCpuSeconds();
  const { result, latenciesMs } = await fire(target, shape.connections, shape.durationSeconds);
  const cpu = serverCpuSeconds() - cpuBefore;
  return {
    requestsPerSecond: result.requests.average,
    p50Ms: percentile(latenciesMs, 0.5),
    p99Ms: percentile(latenciesMs, 0.99),
    failures: result.non2xx + result.errors,
    serverCpuMicros: (cpu * 1e6) / Math.max(1, result.requests.total),
  };
}

/** The median of each figure over several rounds; failures are summed, since any one counts. */
export function medianOf(rounds: Measurement[]): Measurement {
  return {
    requestsPerSecond: median(rounds.map((round) => round.requestsPerSecond)),
    p50Ms: median(rounds.map((round) => round.p50Ms)),
    p99Ms: median(rounds.map((round) => round.p99Ms)),
    failures: rounds.reduce((sum, round) => sum + round.failures, 0),
    serverCpuMicros: median(rounds.map((round) => round.serverCpuMicros)),
  };
}

/**
 * One autocannon run, with the latency of every 2xx response. autocannon's own percentiles are
 * whole milliseconds (its histogram truncates), too coarse for a read that takes one.
 */
function fire(target: Target, connections: number, seconds: number): Promise<{ result: autocannon.Result; latenciesMs: number[] }> {
  const latenciesMs: number[] = [];
  return new Promise((resolve, reject) => {
    const instance = autocannon({ ...target, connections, duration: seconds }, (error, result) =>
      error ? reject(error) : resolve({ result, latenciesMs }),
    );
    // Emitted as (client, statusCode, bytes, milliseconds), whatever @types/autocannon says.
    (instance as NodeJS.EventEmitter).on('response', (_client: unknown, statusCode: number, _bytes: number, milliseconds: number) => {
      if (statusCode >= 200 && statusCode < 300) latenciesMs.push(milliseconds);
    });
  });
}

function percentile(values: number[], fraction: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(fraction * sorted.length))] ?? Number.NaN;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  const upper = sorted[middle] ?? Number.NaN;
  return sorted.length % 2 === 1 ? upper : ((sorted[middle - 1] ?? upper) + upper) / 2;
}

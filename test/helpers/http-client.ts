import http from 'node:http';

export interface RawResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
}

/**
 * One HTTP request with node:http, where supertest and fetch cannot go: to a real web server,
 * from a chosen local address (127.0.0.2 is a client other than the proxy's 127.0.0.1), with the
 * path sent exactly as written (no URL normalisation).
 */
export function send(
  origin: string,
  path: string,
  options: { method?: string; headers?: Record<string, string>; body?: string; localAddress?: string } = {},
): Promise<RawResponse> {
  const { hostname, port } = new URL(origin);
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: hostname,
        port,
        path,
        method: options.method ?? 'GET',
        headers: { ...options.headers, ...(options.body === undefined ? {} : { 'Content-Length': Buffer.byteLength(options.body) }) },
        localAddress: options.localAddress,
        agent: false,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(options.body);
  });
}

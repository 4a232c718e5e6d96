import type { IncomingMessage, ServerResponse } from 'node:http';
import helmet from 'helmet';

/**
 * The headers helmet sets, worked out once. They are the same on every response, and running
 * helmet's middleware per request (what @fastify/helmet does) re-parses the CSP directives and
 * renames every option each time. An API answers JSON: nothing may be framed, run or loaded
 * from its responses (the docs page sets its own CSP).
 */
export function securityHeaders(): Readonly<Record<string, string>> {
  const headers: Record<string, string> = {};
  const recorder = {
    setHeader(name: string, value: string | number | readonly string[]) {
      headers[name] = String(value);
    },
    removeHeader(name: string) {
      delete headers[name];
    },
  };
  const middleware = helmet({
    contentSecurityPolicy: { useDefaults: false, directives: { defaultSrc: ["'none'"], frameAncestors: ["'none'"] } },
  });
  middleware({} as IncomingMessage, recorder as unknown as ServerResponse, (error?: unknown) => {
    if (error) throw error;
  });
  return Object.freeze(headers);
}

import type { RequestHandler, Router } from 'express';
import { MethodNotAllowedError } from '../errors';

type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';
export type RouteHandlers = Partial<Record<Method, RequestHandler | RequestHandler[]>>;

/**
 * Registers a path with its handlers, answering 405 with `Allow` for any other method (CONTRACT
 * §6). HEAD is served by the GET handler (Express does that); OPTIONS lists the methods.
 */
export function route(router: Router, path: string, handlers: RouteHandlers): void {
  const methods = Object.keys(handlers) as Method[];
  const allowed = methods.flatMap((method) => (method === 'get' ? ['GET', 'HEAD'] : [method.toUpperCase()]));
  const entry = router.route(path);
  for (const method of methods) {
    const handler = handlers[method];
    if (handler) entry[method](...[handler].flat());
  }
  entry.options((_req, res) => {
    res.setHeader('Allow', [...allowed, 'OPTIONS'].join(', '));
    res.status(204).end();
  });
  entry.all(() => {
    throw new MethodNotAllowedError(allowed);
  });
}

import { type Request, type Response, Router } from 'express';
import { MethodNotAllowedError } from '../errors';

export type Handler = (req: Request, res: Response) => Promise<void> | void;
type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';

const METHODS: readonly Method[] = ['get', 'post', 'put', 'patch', 'delete'];

/** What a route asks of the middleware in front of it. */
export interface RouteNeeds {
  /**
   * Authentication loads the caller's own employee record with the token, in the same query
   * (read it with callerEmployeeOf): one database round trip for GET /employees/me. Only for
   * paths without parameters.
   */
  callerEmployee?: boolean;
  /**
   * Its GET reads a list whose cost grows with the instance's data (a sort without an index, a
   * search, a count over every row): it counts against the caller's budget of concurrent heavy
   * requests (CALLER_CONCURRENCY, src/rate-limits/concurrency.ts). Its other methods do not.
   */
  heavy?: boolean;
}

/** A path the API serves (a pattern under the base path, e.g. /employees/:id), its methods and needs. */
export interface ServedRoute extends RouteNeeds {
  path: string;
  methods: string[];
}

/**
 * The routes of a feature under one path prefix: an express.Router that app.ts mounts at `prefix`,
 * so that a request meets only the routes under its own prefix. Every path answers the methods it
 * has handlers for, HEAD with its GET handler, OPTIONS with 204 and `Allow`, and any other method
 * with 405 and `Allow` (CONTRACT §6).
 */
export class Routes {
  readonly router: Router;
  readonly served: ServedRoute[] = [];

  constructor(readonly prefix: string) {
    // A prefix's own parameters (/employees/:id/attendance) reach the handlers; the instance of a
    // cloud base path need not (it is resolved in front of every feature).
    this.router = Router({ mergeParams: prefix.includes(':') });
  }

  route(path: string, handlers: Partial<Record<Method, Handler>>, needs: RouteNeeds = {}): this {
    const pattern = path === '/' ? this.prefix : `${this.prefix}${path}`;
    const given = METHODS.filter((method) => handlers[method]);
    const allowed = given.flatMap((method) => (method === 'get' ? ['GET', 'HEAD'] : [method.toUpperCase()]));
    this.served.push({ path: pattern, methods: allowed, ...needs });
    const named = (handler: Handler): Handler => (req, res) => {
      // The pattern, never the path with its ids: the access log's metrics label by it.
      res.locals.route = pattern;
      return handler(req, res);
    };
    const route = this.router.route(path);
    for (const method of given) route[method](named(handlers[method] as Handler));
    route.all(
      named((req, res) => {
        if (req.method !== 'OPTIONS') throw new MethodNotAllowedError(allowed);
        res.setHeader('Allow', [...allowed, 'OPTIONS'].join(', '));
        res.statusCode = 204;
        res.end();
      }),
    );
    return this;
  }
}

import { type Request, type Response, Router } from 'express';
import { MethodNotAllowedError } from '../errors';

type Handler = (req: Request, res: Response) => Promise<void> | void;
type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';

const METHODS: readonly Method[] = ['get', 'post', 'put', 'patch', 'delete'];

/**
 * What a route asks of the middleware in front of it: said once, on its route() call; app.ts
 * derives what each middleware needs from the served routes. Every need but `heavy` is matched
 * by the exact path, so it is only for paths without parameters.
 */
interface RouteNeeds {
  /**
   * Authentication loads the caller's own employee record with the token, in the same query
   * (req.callerEmployee): one database round trip for GET /employees/me.
   */
  callerEmployee?: boolean;
  /** JSON bodies up to this many bytes, above BODY_LIMIT (a terminal's batch of punches). */
  bodyLimitBytes?: number;
  /** Form bodies (application/x-www-form-urlencoded) besides JSON: the OAuth token endpoint. */
  formBody?: boolean;
  /** A device token may reach it; every other route refuses one. */
  deviceToken?: boolean;
  /**
   * Its GET reads a list whose cost grows with the instance's data (a sort without an index, a
   * search, a count over every row): it counts against the caller's budget of concurrent heavy
   * requests (CALLER_CONCURRENCY, src/rate-limits/concurrency.ts). Its other methods do not.
   * Matched by pattern, so it may sit on a path with parameters.
   */
  heavy?: boolean;
}

/** A request's path under the base path without trailing slashes: what route needs are keyed by. */
export function routePathOf(req: Request): string {
  const path = req.path;
  return path.length > 1 ? path.replace(/\/+$/, '') : path;
}

/** The paths of the routes that declare `need`, with what they declare. */
export function routesNeeding<Need extends keyof RouteNeeds>(
  routes: readonly ServedRoute[],
  need: Need,
): Map<string, NonNullable<RouteNeeds[Need]>> {
  const paths = new Map<string, NonNullable<RouteNeeds[Need]>>();
  for (const route of routes) {
    const value = route[need];
    if (value !== undefined && value !== false) paths.set(route.path, value as NonNullable<RouteNeeds[Need]>);
  }
  return paths;
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
 * with 405 and `Allow` (docs/decisions.md, "Requests and errors").
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
    const exactNeeds = Object.keys(needs).filter((need) => need !== 'heavy');
    if (exactNeeds.length > 0 && pattern.includes(':'))
      throw new Error(`${exactNeeds.join(', ')}: only for paths without parameters (${pattern})`);
    const given = METHODS.filter((method) => handlers[method]);
    const allowed = given.flatMap((method) => (method === 'get' ? ['GET', 'HEAD'] : [method.toUpperCase()]));
    this.served.push({ path: pattern, methods: allowed, ...needs });
    const named =
      (handler: Handler): Handler =>
      (req, res) => {
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

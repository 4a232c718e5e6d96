import type { FastifyInstance, FastifyReply, FastifyRequest, HTTPMethods } from 'fastify';
import { MethodNotAllowedError } from '../errors';

export type Handler = (request: FastifyRequest, reply: FastifyReply) => Promise<unknown>;
type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';

/** What a route asks of the hooks in front of it; read by them from `request.routeOptions.config`. */
export interface RouteNeeds {
  /** No bearer token needed (self-hosted GET /echo). */
  public?: boolean;
  /**
   * Authentication loads the caller's own employee record with the token, in the same query
   * (read it with callerEmployeeOf): one database round trip for GET /employees/me.
   */
  callerEmployee?: boolean;
}

declare module 'fastify' {
  interface FastifyContextConfig extends RouteNeeds {}
}

const METHODS: readonly Method[] = ['get', 'post', 'put', 'patch', 'delete'];

/**
 * Registers a path with its handlers, answering 405 with `Allow` for the other methods (CONTRACT
 * §6). HEAD is served by the GET handler (Fastify adds it); OPTIONS lists the methods.
 */
export function route(app: FastifyInstance, url: string, handlers: Partial<Record<Method, Handler>>, needs: RouteNeeds = {}): void {
  const given = METHODS.filter((method) => handlers[method]);
  const allowed = given.flatMap((method) => (method === 'get' ? ['GET', 'HEAD'] : [method.toUpperCase()]));
  for (const method of given) {
    app.route({ method: method.toUpperCase() as HTTPMethods, url, handler: handlers[method] as Handler, config: needs });
  }
  const others = METHODS.filter((method) => !handlers[method]).map((method) => method.toUpperCase());
  if (!handlers.get) others.push('HEAD');
  app.route({
    method: others as HTTPMethods[],
    url,
    config: needs,
    handler: async () => {
      throw new MethodNotAllowedError(allowed);
    },
  });
  app.route({
    method: 'OPTIONS',
    url,
    config: { ...needs, public: true },
    handler: async (_request, reply) => reply.header('Allow', [...allowed, 'OPTIONS'].join(', ')).code(204).send(),
  });
}

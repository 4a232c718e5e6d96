import http from 'node:http';
import type { Socket } from 'node:net';
import type { Express } from 'express';
import { answerClientError } from './client-error';

/**
 * The HTTP server that serves `app` (start/serve.ts listens on it; the tests hand it to supertest).
 * `listener` is the app itself unless a test wraps it.
 *
 * Its request and response objects are born with the app's prototypes. Express otherwise swaps
 * the prototype of both on every request (`Object.setPrototypeOf` in `app.handle`, which then
 * sets the same prototype again and changes nothing), and that swap de-optimises Node's own HTTP
 * code (docs/decisions.md, Stack; docs/performance.md, "Figures behind the code"). The
 * per-request fields of http/context.ts are set here
 * too, so every request has one shape from birth.
 *
 * A request Node's parser refuses (an unknown method, a broken request line, headers too large
 * or too slow) never reaches the app; `clientError` answers it with a problem body.
 */
export function createServer(app: Express, listener: http.RequestListener = app): http.Server {
  const server = http.createServer(
    {
      IncomingMessage: requestClass(app),
      ServerResponse: responseClass(app),
      // A client that sends its headers or its body too slowly ties up a connection (slowloris):
      // 408 after 10 s for the headers, 30 s for the whole request, checked every second.
      headersTimeout: HEADERS_TIMEOUT_MS,
      requestTimeout: RECEIVE_TIMEOUT_MS,
      connectionsCheckingInterval: 1000,
    },
    listener,
  );
  server.on('clientError', answerClientError);
  // Longer than a proxy keeps an idle upstream connection (nginx: 60 s), so that the proxy, not
  // this server, closes it: a request sent as the server closed would fail as a 502.
  server.keepAliveTimeout = KEEP_ALIVE_TIMEOUT_MS;
  return server;
}

const KEEP_ALIVE_TIMEOUT_MS = 72_000;
const HEADERS_TIMEOUT_MS = 10_000;
const RECEIVE_TIMEOUT_MS = 30_000;

function requestClass(app: Express): typeof http.IncomingMessage {
  function AppRequest(this: http.IncomingMessage & Express.Request, socket: Socket): void {
    Reflect.apply(http.IncomingMessage, this, [socket]);
    this.instance = undefined;
    this.caller = undefined;
    this.device = undefined;
    this.callerEmployee = undefined;
    this.clientIp = '';
  }
  AppRequest.prototype = app.request;
  return AppRequest as unknown as typeof http.IncomingMessage;
}

function responseClass(app: Express): typeof http.ServerResponse {
  function AppResponse(this: http.ServerResponse, request: http.IncomingMessage, options?: unknown): void {
    Reflect.apply(http.ServerResponse, this, [request, options]);
  }
  AppResponse.prototype = app.response;
  return AppResponse as unknown as typeof http.ServerResponse;
}

import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { type FastifyReply, type FastifyRequest, LogController } from 'fastify';
import pino, { type Logger } from 'pino';
import type { Config } from './config';

export type { Logger };

export function createLogger(config: Pick<Config, 'logLevel'>, destination?: pino.DestinationStream): Logger {
  return pino({ level: config.logLevel }, destination);
}

/**
 * Standard output, written asynchronously: lines logged in one tick leave in one write instead
 * of one blocking write each. pino flushes what is buffered when the process exits.
 */
export function standardOutput(): pino.DestinationStream {
  return pino.destination({ dest: 1, sync: false });
}

const SANE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** The caller's X-Request-Id when it is sane (so ids match across proxies), else a new one. */
export function requestIdFor(req: IncomingMessage): string {
  const sent = req.headers['x-request-id'];
  return typeof sent === 'string' && SANE_REQUEST_ID.test(sent) ? sent : randomUUID();
}

/**
 * One access-log line per request, when it completes. Only method, path (no query string: it may
 * hold search terms), status, duration and client address: never headers, tokens or bodies.
 */
export class AccessLog extends LogController {
  constructor() {
    super({ requestIdLogLabel: 'requestId' });
  }

  override incomingRequest(): void {}

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    // Flat fields: Fastify's own serializers would reshape objects named req and res.
    const entry = {
      method: request.method,
      path: request.url.split('?')[0],
      statusCode: reply.statusCode,
      remoteAddress: request.ip,
      responseTime: Math.round(reply.elapsedTime * 100) / 100,
    };
    if (error || reply.statusCode >= 500) request.log.error(entry, 'request completed');
    else request.log.info(entry, 'request completed');
  }
}

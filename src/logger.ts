import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Request, RequestHandler } from 'express';
import pino, { type Logger } from 'pino';
import { pinoHttp } from 'pino-http';
import { prettyFactory } from 'pino-pretty';
import type { Config } from './config';

export type { Logger };

export function createLogger(config: Pick<Config, 'logLevel'>, destination?: pino.DestinationStream): Logger {
  return pino({ level: config.logLevel, serializers: { err: logSafeError } }, destination);
}

/** What a database error carries of its query: the SQL (mysql2 sends it with the values in) and the values. */
const QUERY_FIELDS = ['sql', 'bindings', 'parameters', 'values'];
/**
 * A quoted literal in an error's text, unless it names a key, column, table or constraint: the
 * drivers quote the values they complain about (MySQL's "Duplicate entry 'a@b.c' for key ...",
 * "Incorrect date value: '...'").
 */
const QUOTED_VALUE = /(?<!\b(?:key|column|table|constraint|database) )'(?:[^'\\\n]|\\.)*'/gi;

/**
 * pino's error serializer, minus anything that could hold a value a client sent (a national id,
 * a private e-mail): the query's SQL and values, and quoted values in the messages. Knex's own
 * message holds the SQL with placeholders only (compileSqlOnError: false in db/connect.ts).
 */
function logSafeError(error: unknown): unknown {
  // Anything with a message, as pino's own serializer decides: an error class of another realm
  // (better-sqlite3 hands every test file of a jest worker the SqliteError of the first) is no
  // instance of this realm's Error, and its query text must go all the same.
  if (typeof error !== 'object' || error === null || typeof (error as { message?: unknown }).message !== 'string') return error;
  const serialized: Record<string, unknown> = { ...pino.stdSerializers.err(error as Error) };
  for (const field of QUERY_FIELDS) delete serialized[field];
  for (const field of ['message', 'stack', 'sqlMessage']) {
    const text = serialized[field];
    if (typeof text === 'string') serialized[field] = text.replace(QUOTED_VALUE, "'?'");
  }
  return serialized;
}

/**
 * Standard output (or `fd`). Not a terminal: JSON lines, for whatever collects the log, written
 * asynchronously (lines logged in one tick leave in one write instead of one blocking write each;
 * pino flushes what is buffered when the process exits). A terminal: pino-pretty's readable lines,
 * one per entry, written at once so they keep their place around the start message.
 */
export function standardOutput(terminal: boolean, fd = 1): pino.DestinationStream {
  if (!terminal) return pino.destination({ dest: fd, sync: false });
  const prettify = prettyFactory({ translateTime: 'SYS:HH:MM:ss.l', ignore: 'hostname', singleLine: true });
  const output = pino.destination({ dest: fd, sync: true });
  return { write: (line: string) => output.write(prettify(line)) };
}

const SANE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** The caller's X-Request-Id when it is sane (so ids match across proxies), else a new one. */
function requestIdFor(req: IncomingMessage): string {
  const sent = req.headers['x-request-id'];
  return typeof sent === 'string' && SANE_REQUEST_ID.test(sent) ? sent : randomUUID();
}

/**
 * The first middleware: the request's id (echoed in X-Request-Id), its client address as the
 * trusted proxies report it (read once), and, through pino-http, `req.log` (a logger that adds
 * the request id) and one access-log line when the response is done. That line holds only the
 * method, the path (no query string: it may hold search terms), the status, the time taken and the
 * client address: never headers, tokens or bodies.
 */
export function requestLogging(logger: Logger): RequestHandler {
  const entry = (req: IncomingMessage, res: ServerResponse, responseTime: number) => {
    const request = req as Request;
    return {
      method: request.method,
      path: request.originalUrl.split('?')[0],
      statusCode: res.statusCode,
      remoteAddress: request.clientIp,
      responseTime,
    };
  };
  const log = pinoHttp({
    logger,
    genReqId: (req, res) => {
      const id = requestIdFor(req);
      res.setHeader('X-Request-Id', id);
      return id;
    },
    // One child logger per request, bound to the request as `requestId` (its serializer keeps
    // only the id), made from the long-lived logger. pino-http's quietReqLogger would make a child
    // and a child of that child: V8 then turns each request's first child into a prototype, a
    // measurable part of a whole `/echo` (docs/performance.md, "Figures behind the code").
    customAttributeKeys: { req: 'requestId', reqId: 'requestId' },
    wrapSerializers: false,
    serializers: { requestId: (req: IncomingMessage) => (req as Request).id, res: () => undefined },
    customLogLevel: (_req, res, error) => (error || res.statusCode >= 500 ? 'error' : 'info'),
    customSuccessMessage: () => 'request completed',
    customErrorMessage: () => 'request completed',
    customSuccessObject: (req, res, value: { responseTime: number }) => entry(req, res, value.responseTime),
    customErrorObject: (req, res, _error, value: { responseTime: number }) => entry(req, res, value.responseTime),
  });
  return (req, res, next) => {
    req.clientIp = req.ip ?? '';
    log(req, res, next);
  };
}

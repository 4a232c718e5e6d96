import { randomUUID } from 'node:crypto';
import type { Socket } from 'node:net';
import { AppError, BadRequestError } from '../errors';
import { problemBody } from './problem';

/**
 * Answers a request Node's HTTP parser refused (an unknown method, a malformed request line or
 * header, headers too large, a client too slow to send them) with a problem body like every other
 * error. No request was parsed, so there is no request id to echo: a new one is made.
 */
export function answerClientError(error: NodeJS.ErrnoException, socket: Socket): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const problem =
    error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
      ? new AppError(408, { code: 'request_timeout', title: 'Request timeout' }, { detail: 'The request was not received in time' })
      : error.code === 'HPE_HEADER_OVERFLOW'
        ? new AppError(
            431,
            { code: 'headers_too_large', title: 'Request headers too large' },
            { detail: 'The request headers are too large' },
          )
        : new BadRequestError({ detail: 'The request is malformed' });
  const requestId = randomUUID();
  const body = problemBody(problem, requestId);
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${problem.status} ${problem.title}\r\n` +
        'Content-Type: application/problem+json; charset=utf-8\r\n' +
        `Content-Length: ${Buffer.byteLength(body)}\r\n` +
        `X-Request-Id: ${requestId}\r\nCache-Control: no-store\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy(error);
}

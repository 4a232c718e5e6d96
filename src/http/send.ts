import type { Response } from 'express';

/**
 * Sends text with its type and length and ends the response. Every answer of the API goes out
 * through here: Express's `res.send` would also work out an ETag, check freshness and convert the
 * body again, none of which an API whose answers are all `no-store` JSON needs.
 */
export function sendText(res: Response, status: number, type: string, text: string): void {
  res.statusCode = status;
  res.setHeader('Content-Type', type);
  res.setHeader('Content-Length', Buffer.byteLength(text));
  res.end(text);
}

/** Sends JSON text the handler wrote itself (a page written straight from its rows, a stored reply). */
export function sendJsonText(res: Response, json: string, status = 200): void {
  sendText(res, status, 'application/json; charset=utf-8', json);
}

/** Sends a value as JSON. */
export function sendJson(res: Response, value: unknown, status = 200): void {
  sendJsonText(res, JSON.stringify(value), status);
}

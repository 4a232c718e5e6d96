import type { FastifyReply } from 'fastify';

/**
 * Sends JSON text the handler wrote itself (a stored reply, a document written once, a page
 * written straight from its rows): Fastify sends a string as it is when the type says JSON.
 */
export function sendJsonText(reply: FastifyReply, json: string): FastifyReply {
  return reply.type('application/json; charset=utf-8').send(json);
}

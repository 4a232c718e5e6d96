import type { OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import { z } from 'zod';
import {
  COMMON_PROBLEMS,
  DELETE_PROBLEMS,
  idempotencyKeyHeader,
  int64,
  jsonBody,
  jsonResponse,
  pageSchema,
  problems,
} from '../http/openapi';
import { FORM_FIELD_LIMIT } from '../http/json-body';
import { paginationFields } from '../http/pagination';
import { ROLES } from '../caller';
import { USERNAME_PATTERN } from '../users/user-repository';

const instant = z.string().max(30).meta({ format: 'date-time' });

/** A token's id, the JWT's jti (a UUID); the server answers 404 to anything else. */
const tokenId = z
  .string()
  .regex(/^[0-9a-f-]{36}$/)
  .max(36)
  .meta({ example: 'a774444f-9629-4207-9568-972bf4295623' });
const tokenIdParam = z.object({ id: tokenId });

const tokenResponse = z
  .strictObject({
    access_token: z.string().max(2000).meta({ description: 'The bearer token (a JWT); shown only here' }),
    token_type: z.literal('bearer'),
    expires_in: int64(0, 10 * 365 * 86400).meta({ description: 'Seconds until it expires' }),
    scope: z.enum(ROLES).meta({ description: "The user's role" }),
    id: tokenId.meta({ description: "The token's id (its jti), for listing and revoking" }),
  })
  .meta({ id: 'TokenResponse' });

const tokenSummary = z
  .strictObject({
    id: tokenId,
    name: z.string().max(100).nullable(),
    created_at: instant,
    expires_at: instant,
    revoked_at: instant.nullable(),
    last_used_at: instant.nullable().meta({ description: 'Updated at most once a minute' }),
    state: z.enum(['active', 'revoked', 'expired']),
    current: z.boolean().meta({ description: 'The token of this request' }),
  })
  .meta({ id: 'Token' });

const location = z.object({
  Location: z.string().max(2048).meta({ description: 'The new token, e.g. /app/api/tokens/{id}: GET answers its metadata' }),
});

const passwordGrant = z
  .object({
    grant_type: z.literal('password'),
    username: z.string().max(100).regex(USERNAME_PATTERN),
    password: z.string().max(1024),
  })
  .meta({ id: 'PasswordGrant', description: 'RFC 6749 §4.3; other fields (client_id, scope...) are ignored' });

/** The same as a form: at most FORM_FIELD_LIMIT fields (more is 400 invalid_body). */
const passwordGrantForm = passwordGrant.meta({
  id: 'PasswordGrantForm',
  description: `RFC 6749 §4.3, as a form of at most ${FORM_FIELD_LIMIT} fields; other fields (client_id, scope...) are ignored`,
  maxProperties: FORM_FIELD_LIMIT,
});

export function describeTokens(registry: OpenAPIRegistry): void {
  const tags = ['Tokens'];
  const security = [{ bearer: [] }];
  registry.registerPath({
    method: 'post',
    path: '/oauth/token',
    operationId: 'signIn',
    tags,
    summary: 'Sign in with a password (OAuth 2.0 password grant); no token needed',
    description:
      'Failed attempts are limited per user and client address (5 per 15 minutes), per user (50) and per address (20): the 429 says when to retry. A username outside the username pattern is 400 `invalid_request`.',
    request: {
      body: {
        required: true,
        content: { 'application/x-www-form-urlencoded': { schema: passwordGrantForm }, 'application/json': { schema: passwordGrant } },
      },
    },
    responses: {
      200: jsonResponse('A new token', tokenResponse),
      ...problems(400, 413, 415, ...COMMON_PROBLEMS),
    },
  });
  registry.registerPath({
    method: 'post',
    path: '/tokens',
    operationId: 'rotateToken',
    tags,
    security,
    summary: 'Rotate: a new token for the caller; the token used for this request is revoked',
    request: {
      headers: idempotencyKeyHeader,
      // Optional, as the server reads it: no body (or no Content-Type) rotates with the defaults.
      body: {
        ...jsonBody(
          z.strictObject({
            name: z.string().max(100).optional(),
            expires_in: int64(60, 10 * 365 * 86400)
              .optional()
              .meta({ description: 'Seconds; default 180 days' }),
          }),
          'Optional: without a body the new token is named "rotated" and lives 180 days',
        ),
        required: false,
      },
    },
    responses: {
      201: jsonResponse('The new token', tokenResponse, location),
      ...problems(400, 401, 409, 413, 415, 422, ...COMMON_PROBLEMS),
    },
  });
  registry.registerPath({
    method: 'get',
    path: '/tokens',
    operationId: 'listTokens',
    tags,
    security,
    summary: "The caller's tokens (never the token strings); admins may ask for anyone's with ?username=",
    request: {
      query: z.strictObject({
        ...paginationFields({ defaultLimit: 50, maxLimit: 200 }),
        username: z.string().min(1).max(100).regex(USERNAME_PATTERN).optional(),
      }),
    },
    responses: {
      200: jsonResponse('A page of tokens', pageSchema(tokenSummary, 'TokenPage')),
      ...problems(400, 401, 404, ...COMMON_PROBLEMS),
    },
  });
  registry.registerPath({
    method: 'get',
    path: '/tokens/{id}',
    operationId: 'getToken',
    tags,
    security,
    summary: "A token's metadata, never the token string (the caller's own; admins: anyone's)",
    description: "What the `Location` of `POST /tokens` names. Someone else's token is 404 to a non-admin, as an unknown one.",
    request: { params: tokenIdParam },
    responses: { 200: jsonResponse('The token', tokenSummary), ...problems(401, 404, ...COMMON_PROBLEMS) },
  });
  registry.registerPath({
    method: 'delete',
    path: '/tokens/{id}',
    operationId: 'revokeToken',
    tags,
    security,
    summary: "Revoke a token (the caller's own; admins: anyone's); it stops working at once",
    request: { params: tokenIdParam, headers: idempotencyKeyHeader },
    responses: {
      200: jsonResponse('Revoked', z.strictObject({ id: tokenId })),
      ...problems(401, 404, ...DELETE_PROBLEMS, ...COMMON_PROBLEMS),
    },
  });
}

import type { Request } from 'express';
import { z } from 'zod';
import type { Clock } from '../clock';
import { BadRequestError, ForbiddenError, NotFoundError } from '../errors';
import { callerOf, instanceOf } from '../http/context';
import { optionalJsonObject } from '../http/json-body';
import { offsetOf, paginationFields, toPage } from '../http/pagination';
import { fieldErrorsOf, parseBody, parseQuery } from '../http/parse';
import { Routes } from '../http/routes';
import { sendJson } from '../http/send';
import { sendWrite } from '../http/write';
import type { LoginAttempts } from '../rate-limits/limits';
import type { Caller, Role } from '../caller';
import {
  countTokensOfUser,
  findTokenOwner,
  findTokenSummary,
  listTokensOfUser,
  revokeToken,
  type TokenSummary,
} from '../users/token-repository';
import { findLoginUser, findUserByUsername, USERNAME_PATTERN } from '../users/user-repository';
import { DEFAULT_TOKEN_LIFETIME_SECONDS, issueToken } from './issue-token';
import { authenticatePassword } from './password-grant';

const MAX_LIFETIME_SECONDS = 10 * 365 * 86400;

/** RFC 6749 §4.3; fields other than these (client_id, scope...) are ignored, as OAuth clients send them. */
const passwordGrantSchema = z.object({
  grant_type: z.string({ error: 'is required' }),
  username: z
    .string({ error: 'is required' })
    .min(1, { error: 'is required' })
    .regex(USERNAME_PATTERN, { error: 'may hold letters, digits and . _ @ - (at most 100 characters)' }),
  password: z.string({ error: 'is required' }).min(1, { error: 'is required' }).max(1024),
});

const rotateSchema = z.strictObject({
  name: z.string().max(100, { error: 'must be at most 100 characters' }).optional(),
  expires_in: z
    .number({ error: 'must be a number of seconds' })
    .int()
    .min(60)
    .max(MAX_LIFETIME_SECONDS, { error: 'may be at most 10 years' })
    .optional(),
});

const listQuery = z.strictObject({
  ...paginationFields({ defaultLimit: 50, maxLimit: 200 }),
  username: z.string().min(1).max(100).optional(),
});

/** The answer of RFC 6749 §5.1 for a new token. */
function tokenResponse(issued: { id: string; token: string; expiresAt: Date }, role: Role, now: Date) {
  return {
    access_token: issued.token,
    token_type: 'bearer',
    expires_in: Math.round((issued.expiresAt.getTime() - now.getTime()) / 1000),
    scope: role,
    id: issued.id,
  };
}

/**
 * POST /oauth/token: a user signs in with their password (docs/api.md, "Authentication", RFC 6749 §4.3) and gets a
 * token. Public (app.ts mounts it before requireBearer); takes JSON or form bodies.
 */
export function oauthRoutes({ clock, login }: { clock: Clock; login: LoginAttempts }): Routes {
  return new Routes('/oauth/token').route(
    '/',
    {
      post: async (req, res) => {
        const grant = parseGrant(req);
        const instance = instanceOf(req);
        // Failures count against the user found, whatever spelling of its name was sent; against
        // the name sent (in lower case) when there is no such user.
        const found = await findLoginUser(instance.db, grant.username);
        const attempt = await login.attempt(req, found ? `user:${found.id}` : `name:${grant.username.toLowerCase()}`);
        const user = await authenticatePassword(found, grant.password);
        if (!user)
          throw new BadRequestError({ code: 'invalid_grant', title: 'Sign-in failed', detail: 'The username or password is wrong' });
        await attempt.succeeded();
        const now = clock.now();
        const issued = await issueToken(instance.db, instance.signingKey, { userId: user.id, name: 'password grant', now });
        res.setHeader('Pragma', 'no-cache');
        sendJson(res, tokenResponse(issued, user.role, now));
      },
    },
    { formBody: true },
  );
}

/**
 * Tokens for users themselves (docs/api.md, "Authentication"): rotate a token (POST /tokens), see and revoke their
 * tokens (GET /tokens, GET and DELETE /tokens/{id}). Admins may see and revoke anyone's.
 */
export function tokenRoutes({ clock }: { clock: Clock }): Routes {
  return new Routes('/tokens')
    .route('/', {
      post: async (req, res) => {
        const caller = callerOf(req);
        const body = parseBody(rotateSchema, optionalJsonObject(req));
        const instance = instanceOf(req);
        const now = clock.now();
        await sendWrite(req, res, now, async (trx) => {
          const issued = await issueToken(trx, instance.signingKey, {
            userId: caller.userId,
            name: body.name ?? 'rotated',
            now,
            lifetimeSeconds: body.expires_in ?? DEFAULT_TOKEN_LIFETIME_SECONDS,
          });
          // Rotation: the token that asked stops working.
          await revokeToken(trx, caller.tokenId, now);
          // Never stored by the Idempotency-Key store: a database reader must not find a token.
          return {
            status: 201,
            headers: { Location: `${req.baseUrl}/${issued.id}` },
            body: tokenResponse(issued, caller.role, now),
            secret: true,
          };
        });
      },
      get: async (req, res) => {
        const caller = callerOf(req);
        const query = parseQuery(listQuery, req.query);
        const { db } = instanceOf(req);
        let userId = caller.userId;
        if (query.username !== undefined && query.username.toLowerCase() !== caller.username.toLowerCase()) {
          if (caller.role !== 'admin') throw new ForbiddenError({ detail: "Only admins may list other users' tokens" });
          const user = await findUserByUsername(db, query.username);
          if (!user) throw new NotFoundError({ detail: 'No such user' });
          userId = user.id;
        }
        const page = { offset: offsetOf(query.page, query.limit), limit: query.limit };
        const [rows, total] = await Promise.all([listTokensOfUser(db, userId, page), countTokensOfUser(db, userId)]);
        const now = clock.now();
        sendJson(
          res,
          toPage(
            rows.map((token) => describeToken(token, caller, now)),
            total,
            query.page,
            query.limit,
          ),
        );
      },
    })
    .route('/:id', {
      // What POST /tokens answers as its Location: the token's metadata, never the token string.
      get: async (req, res) => {
        const caller = callerOf(req);
        const { db } = instanceOf(req);
        const token = TOKEN_ID.test(String(req.params.id)) ? await findTokenSummary(db, String(req.params.id)) : undefined;
        if (!token || !mayReachToken(caller, token.userId)) throw new NotFoundError({ detail: 'No such token' });
        const { userId: _owner, ...summary } = token;
        sendJson(res, describeToken(summary, caller, clock.now()));
      },
      delete: async (req, res) => {
        const caller = callerOf(req);
        const tokenId = String(req.params.id);
        const { db } = instanceOf(req);
        const owner = TOKEN_ID.test(tokenId) ? await findTokenOwner(db, tokenId) : undefined;
        if (owner === undefined || !mayReachToken(caller, owner)) throw new NotFoundError({ detail: 'No such token' });
        const now = clock.now();
        await sendWrite(req, res, now, async (trx) => {
          await revokeToken(trx, tokenId, now);
          return { status: 200, body: { id: tokenId } };
        });
      },
    });
}

/** A token id (a UUID, the JWT's jti); anything else is no token, without a query. */
const TOKEN_ID = /^[0-9a-f-]{36}$/;

/** Someone else's token is as missing as an unknown one, except to admins. */
function mayReachToken(caller: Caller, owner: number): boolean {
  return owner === caller.userId || caller.role === 'admin';
}

/** A token as GET /tokens and GET /tokens/{id} answer it: its state now, and whether it is the caller's. */
function describeToken(token: TokenSummary, caller: Caller, now: Date) {
  const at = now.toISOString();
  return {
    ...token,
    state: token.revoked_at ? 'revoked' : token.expires_at <= at ? 'expired' : 'active',
    current: token.id === caller.tokenId,
  };
}

function parseGrant(req: Request): z.output<typeof passwordGrantSchema> {
  const result = passwordGrantSchema.safeParse(req.body ?? {});
  if (!result.success) {
    const errors = fieldErrorsOf(result.error);
    throw new BadRequestError({ code: 'invalid_request', detail: errors.map((e) => `${e.field} ${e.message}`).join('; '), errors });
  }
  if (result.data.grant_type !== 'password') {
    throw new BadRequestError({ code: 'unsupported_grant_type', detail: 'Only grant_type=password is supported' });
  }
  return result.data;
}

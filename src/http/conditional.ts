import { createHmac, type KeyObject } from 'node:crypto';
import type { Request, Response } from 'express';
import { BadRequestError, PreconditionFailedError } from '../errors';
import { instanceOf } from './context';
import { sendJsonText } from './send';

// Conditional requests (docs/api.md, "Keeping a copy in sync"). An entity tag is
// `"<version>"` or `"<version>.<variant>"`: the version MACs the resource's whole state (its
// full read shape), the variant the representation actually sent when it is not that full shape
// (fields the caller may not read left out, a field selection). A tag thus names exactly one
// sequence of bytes (a strong validator), and its version part names the state, which is what
// If-Match compares: any representation read of the current state may be written against.
// Both are HMACs under the instance's entity-tag key: a bare hash of the full shape let a reader
// who lacks some fields guess them offline against the version (docs/security.md, "Entity tags").

/** 22 base64url characters (132 bits) of an HMAC-SHA-256: no '.' and no quote, nothing to escape. */
function digest(key: KeyObject, text: string): string {
  return createHmac('sha256', key).update(text).digest('base64url').slice(0, 22);
}

/**
 * The strong entity tag of `body`, a representation of the resource whose full read shape is
 * `state`, under `key` (the instance's entityTagKey).
 */
export function entityTag(key: KeyObject, state: string, body: string = state): string {
  const version = digest(key, state);
  return body === state ? `"${version}"` : `"${version}.${digest(key, body)}"`;
}

interface EntityTags {
  /** `*`: any current representation. */
  any: boolean;
  tags: Array<{ weak: boolean; opaque: string }>;
}

/** The longest If-Match or If-None-Match read: a client's few dozen tags, far more than any sends. */
export const MAX_CONDITION_LENGTH = 2000;

/**
 * An If-Match or If-None-Match value (RFC 9110, 8.8.3): `*` or a list of entity tags. Entries
 * that are not entity tags match nothing, so a garbled If-Match fails safe (412, nothing written).
 * A longer value than the document allows is 400, not read: it cannot be a client's honest list.
 */
function parseEntityTags(value: string | string[] | undefined, name: string): EntityTags | undefined {
  if (value === undefined) return undefined;
  const text = Array.isArray(value) ? value.join(', ') : value;
  if (text.length > MAX_CONDITION_LENGTH) {
    throw new BadRequestError({
      code: 'invalid_header',
      detail: `${name} must be at most ${MAX_CONDITION_LENGTH} characters`,
      errors: [{ field: name, message: `must be at most ${MAX_CONDITION_LENGTH} characters` }],
    });
  }
  if (text.trim() === '*') return { any: true, tags: [] };
  const tags = [...text.matchAll(/(W\/)?"([\x21\x23-\x7e\x80-\xff]*)"/g)].map((match) => ({
    weak: match[1] !== undefined,
    opaque: match[2] as string,
  }));
  return { any: false, tags };
}

/**
 * Sends a GET's JSON with its ETag `tag` (entityTag), or 304 without a body when If-None-Match
 * names that tag already (weak comparison, RFC 9110 13.1.2: W/ is ignored). HEAD goes the same
 * way (Node sends no body for it).
 */
export function sendJsonWithEntityTag(req: Request, res: Response, json: string, tag: string): void {
  res.setHeader('ETag', tag);
  if (noneMatchNames(req, tag)) {
    res.statusCode = 304;
    res.end();
    return;
  }
  sendJsonText(res, json);
}

/**
 * Sets the ETag of a GET's answer and, when If-None-Match names it, answers 304 without a body;
 * true when answered (the handler then sends nothing else).
 */
export function answeredNotModified(req: Request, res: Response, tag: string): boolean {
  res.setHeader('ETag', tag);
  if (!noneMatchNames(req, tag)) return false;
  res.statusCode = 304;
  res.end();
  return true;
}

/** Whether the request's If-None-Match names `tag` (a quoted strong tag) or is `*`: weak comparison, W/ ignored. */
export function noneMatchNames(req: Request, tag: string): boolean {
  const noneMatch = parseEntityTags(req.headers['if-none-match'], 'If-None-Match');
  const opaque = tag.slice(1, -1);
  return noneMatch !== undefined && (noneMatch.any || noneMatch.tags.some((candidate) => candidate.opaque === opaque));
}

/**
 * A write's If-Match, parsed at the edge and checked by the write's flow (assertIfMatch) on the
 * resource as stored, locked, in its transaction, before it changes anything. The tags are MACs,
 * so the value carries the key they are compared under.
 */
export interface IfMatch {
  /** `*`: any existing resource. */
  any: boolean;
  /** The version parts of the strong tags sent; weak ones never match. */
  versions: string[];
  key: KeyObject;
}

/**
 * The If-Match of a write, or undefined when none was sent. A value that is not a list of
 * entity tags names no version, so it matches nothing: a garbled precondition never writes.
 */
export function ifMatchOf(req: Request): IfMatch | undefined {
  const ifMatch = parseEntityTags(req.headers['if-match'], 'If-Match');
  if (!ifMatch) return undefined;
  const versions = ifMatch.tags.filter((tag) => !tag.weak).map((tag) => tag.opaque.split('.')[0] as string);
  return { any: ifMatch.any, versions, key: instanceOf(req).entityTagKey };
}

/**
 * 412 `precondition_failed` unless `ifMatch` is absent, `*`, or names the version of `state` (the
 * resource's full read shape as stored): strong comparison of the tags' version part, so a tag of
 * any representation of the current state passes. `state` is only asked for when a tag is to be
 * compared. A retry under an Idempotency-Key whose first try succeeded is answered from its
 * stored reply before the write runs, so its tag, stale by its own write, is not checked again
 * (docs/api.md, "Keeping a copy in sync").
 */
export function assertIfMatch(ifMatch: IfMatch | undefined, state: () => string): void {
  if (!ifMatch || ifMatch.any) return;
  if (ifMatch.versions.includes(digest(ifMatch.key, state()))) return;
  throw new PreconditionFailedError({
    detail: 'The resource changed since the If-Match tag was read (or the tag is not one of its ETags); read it again and retry',
  });
}

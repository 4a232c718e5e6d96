import { createHash } from 'node:crypto';
import type { Request, Response } from 'express';
import { PreconditionFailedError } from '../errors';
import { sendJsonText } from './send';

// Conditional requests (docs/api.md, "Keeping a copy in sync"). An entity tag is
// `"<version>"` or `"<version>.<variant>"`: the version hashes the resource's whole state (its
// full read shape), the variant the representation actually sent when it is not that full shape
// (fields the caller may not read left out, a field selection). A tag thus names exactly one
// sequence of bytes (a strong validator), and its version part names the state, which is what
// If-Match compares: any representation read of the current state may be written against.

/** 22 base64url characters (132 bits) of a SHA-256: no '.' and no quote, nothing to escape. */
function digest(text: string): string {
  return createHash('sha256').update(text).digest('base64url').slice(0, 22);
}

/** The strong entity tag of `body`, a representation of the resource whose full read shape is `state`. */
export function entityTag(state: string, body: string = state): string {
  const version = digest(state);
  return body === state ? `"${version}"` : `"${version}.${digest(body)}"`;
}

interface EntityTags {
  /** `*`: any current representation. */
  any: boolean;
  tags: Array<{ weak: boolean; opaque: string }>;
}

/**
 * An If-Match or If-None-Match value (RFC 9110, 8.8.3): `*` or a list of entity tags. Entries
 * that are not entity tags match nothing, so a garbled If-Match fails safe (412, nothing written).
 */
function parseEntityTags(value: string | string[] | undefined): EntityTags | undefined {
  if (value === undefined) return undefined;
  const text = Array.isArray(value) ? value.join(', ') : value;
  if (text.trim() === '*') return { any: true, tags: [] };
  const tags = [...text.matchAll(/(W\/)?"([\x21\x23-\x7e\x80-\xff]*)"/g)].map((match) => ({
    weak: match[1] !== undefined,
    opaque: match[2] as string,
  }));
  return { any: false, tags };
}

/**
 * Sends a GET's JSON with its ETag, or 304 without a body when If-None-Match names that tag
 * already (weak comparison, RFC 9110 13.1.2: W/ is ignored). HEAD goes the same way (Node sends
 * no body for it). `state` is the resource's full read shape when `json` is not it.
 */
export function sendJsonWithEntityTag(req: Request, res: Response, json: string, state: string = json): void {
  const tag = entityTag(state, json);
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
  const noneMatch = parseEntityTags(req.headers['if-none-match']);
  const opaque = tag.slice(1, -1);
  return noneMatch !== undefined && (noneMatch.any || noneMatch.tags.some((candidate) => candidate.opaque === opaque));
}

/** A check a write runs on the resource as it is stored, locked, in its transaction, before it changes anything. */
export type Precondition = (state: string) => void;

/**
 * The If-Match of a write as a Precondition over the resource's full read shape, or undefined
 * when none was sent. Strong comparison (a W/ tag never matches) of the tags' version part: a
 * tag of any representation of the current state passes; `*` passes for any existing resource.
 * A stale tag is 412 `precondition_failed`. A retry under an Idempotency-Key whose first try
 * succeeded is answered from its stored reply before the write runs, so its tag, stale by its
 * own write, is not checked again (docs/api.md, "Keeping a copy in sync").
 */
export function ifMatchOf(req: Request): Precondition | undefined {
  const ifMatch = parseEntityTags(req.headers['if-match']);
  if (!ifMatch) return undefined;
  return (state) => {
    if (ifMatch.any) return;
    const version = digest(state);
    if (ifMatch.tags.some((tag) => !tag.weak && tag.opaque.split('.')[0] === version)) return;
    throw new PreconditionFailedError({
      detail: 'The resource changed since the If-Match tag was read (or the tag is not one of its ETags); read it again and retry',
    });
  };
}

import { z } from 'zod';

/**
 * A boolean query parameter: `true` or `false` on the wire, anything else 400. The OpenAPI
 * document describes it as type boolean, so a generated client may pass a boolean, which it
 * writes as that text.
 */
export function booleanQuery() {
  return z.stringbool({ truthy: ['true'], falsy: ['false'], case: 'sensitive', error: 'must be true or false' }).meta({ type: 'boolean' });
}

import { createSecretKey, randomBytes } from 'node:crypto';
import { PreconditionFailedError } from '../../src/errors';
import { assertIfMatch, entityTag, type IfMatch } from '../../src/http/conditional';

describe('entity tags (src/http/conditional.ts)', () => {
  const key = createSecretKey(randomBytes(32));
  const otherKey = createSecretKey(randomBytes(32));
  const state = '{"id":"7","birthday":"1987-06-14"}';
  const body = '{"id":"7"}';
  const ifMatch = (tags: string[], under = key): IfMatch => ({
    any: false,
    versions: tags.map((tag) => tag.slice(1, -1).split('.')[0]!),
    key: under,
  });

  it('is the same for the same state under one key, and differs under another key', () => {
    expect(entityTag(key, state)).toBe(entityTag(key, state));
    expect(entityTag(key, state)).toMatch(/^"[A-Za-z0-9_-]{22}"$/);
    expect(entityTag(otherKey, state)).not.toBe(entityTag(key, state));
  });

  it('names a partial representation by the version of the state and a variant of its own', () => {
    const full = entityTag(key, state);
    const partial = entityTag(key, state, body);

    expect(partial).toMatch(/^"[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{22}"$/);
    expect(partial.slice(0, 23)).toBe(full.slice(0, 23));
  });

  it('lets a write through for any tag of the current version, or *, and asks for the state only to compare', () => {
    let rendered = 0;
    const current = () => {
      rendered += 1;
      return state;
    };

    expect(() => assertIfMatch(undefined, current)).not.toThrow();
    expect(() => assertIfMatch({ any: true, versions: [], key }, current)).not.toThrow();
    expect(rendered).toBe(0);
    expect(() => assertIfMatch(ifMatch(['"other"', entityTag(key, state, body)]), current)).not.toThrow();
    expect(rendered).toBe(1);
  });

  it('is 412 for a stale tag, a tag made under another key, and no tag at all', () => {
    expect(() => assertIfMatch(ifMatch([entityTag(key, '{"id":"7","birthday":"1987-06-15"}')]), () => state)).toThrow(
      PreconditionFailedError,
    );
    expect(() => assertIfMatch(ifMatch([entityTag(otherKey, state)]), () => state)).toThrow(PreconditionFailedError);
    expect(() => assertIfMatch(ifMatch([]), () => state)).toThrow(PreconditionFailedError);
  });
});

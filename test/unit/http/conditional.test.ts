/** Catalogue responses rendered once (issue #13): memoizedJson serves from memory, bounded, and never keeps an error. */
import { describe, expect, it } from 'vitest';
import { memoizedJson } from '../../../server/src/http/conditional.ts';
import type { RequestContext } from '../../../server/src/http/context.ts';

const ctx = (ifNoneMatch?: string) => ({ headers: ifNoneMatch ? { 'if-none-match': ifNoneMatch } : {} }) as unknown as RequestContext;

describe('memoizedJson', () => {
  it('builds a key once; the same bytes and ETag after; 304 for its ETag (weak or in a list) without building', () => {
    let builds = 0;
    const build = () => ({ n: ++builds, items: ['a', 'b'] });
    const first = memoizedJson(ctx(), 'k1', build, 'public, max-age=300');
    const again = memoizedJson(ctx(), 'k1', build, 'public, max-age=300');
    expect(builds).toBe(1);
    expect(first).toMatchObject({ status: 200, headers: { ETag: expect.stringMatching(/^"[\w-]{32}"$/), 'Cache-Control': 'public, max-age=300' } });
    expect(Buffer.from(again.raw!).toString()).toBe('{"n":1,"items":["a","b"]}');
    expect(again.headers!.ETag).toBe(first.headers!.ETag);
    const etag = first.headers!.ETag;
    for (const header of [etag, `W/${etag}`, `"other", ${etag}`, '*']) {
      const r = memoizedJson(ctx(header), 'k1', build, 'public, max-age=300');
      expect(r.status, header).toBe(304);
      expect(r.raw!.length).toBe(0);
    }
    expect(memoizedJson(ctx('"other"'), 'k1', build, 'x').status).toBe(200);
    expect(builds).toBe(1);
  });

  it('keeps nothing when the build throws (a 404 is answered again, not cached)', () => {
    let calls = 0;
    const failing = () => {
      calls++;
      throw new Error('no such type');
    };
    expect(() => memoizedJson(ctx(), 'missing', failing, 'x')).toThrow('no such type');
    expect(() => memoizedJson(ctx(), 'missing', failing, 'x')).toThrow('no such type');
    expect(calls).toBe(2);
  });

  it('is bounded in bytes: old entries are evicted, least recently used first', () => {
    const big = 'x'.repeat(1024 * 1024);
    let builds = 0;
    const build = (i: number) => () => {
      builds++;
      return { i, big };
    };
    memoizedJson(ctx(), 'lru-0', build(0), 'x');
    for (let i = 1; i <= 20; i++) {
      memoizedJson(ctx(), `lru-${i}`, build(i), 'x');
      memoizedJson(ctx(), 'lru-0', build(0), 'x'); // kept in use: never the oldest
    }
    expect(builds).toBe(21);
    memoizedJson(ctx(), 'lru-0', build(0), 'x');
    expect(builds).toBe(21); // still there
    memoizedJson(ctx(), 'lru-1', build(1), 'x');
    expect(builds).toBe(22); // evicted long ago (20 MiB passed through a 16 MiB memo)
  });
});

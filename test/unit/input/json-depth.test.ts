/** The nesting-depth scan that runs before any JSON body is parsed (server/src/input/json-depth.ts). */
import { describe, expect, it } from 'vitest';
import { MAX_JSON_DEPTH, paramOfDeepPath, tooDeepAt } from '../../../server/src/input/json-depth.ts';

const nested = (depth: number, leaf = '1') => '{"a":'.repeat(depth - 1) + `{"a":${leaf}}` + '}'.repeat(depth - 1);

describe('tooDeepAt', () => {
  it('lets exactly the maximum through and stops one level past it', () => {
    expect(tooDeepAt(nested(MAX_JSON_DEPTH))).toBeNull();
    expect(tooDeepAt(nested(MAX_JSON_DEPTH + 1))).toHaveLength(MAX_JSON_DEPTH);
    expect(tooDeepAt('['.repeat(MAX_JSON_DEPTH) + ']'.repeat(MAX_JSON_DEPTH))).toBeNull();
    expect(tooDeepAt('['.repeat(4_000_000))).toEqual(Array(MAX_JSON_DEPTH).fill(0));
  });

  it('follows keys and indices, and ignores brackets, quotes and escapes inside strings', () => {
    const text = JSON.stringify({
      'x{[': '[[[[{{{{ \\" "',
      items: [{ file_base64: 'AAAA' }, { options: { extract: JSON.parse(nested(40)) } }],
    });
    expect(tooDeepAt(text, 10)).toEqual(['items', 1, 'options', 'extract', 'a', 'a', 'a', 'a', 'a', 'a']);
    expect(tooDeepAt('{"k\\"ey{": {"b": [1, 2, {"c": [[[]]]}]}}', 5)).toEqual(['k"ey{', 'b', 2, 'c', 0]);
    expect(tooDeepAt('{"s": "' + '['.repeat(100) + '"}', 3)).toBeNull();
    // An escaped backslash before a quote does not escape the quote.
    expect(tooDeepAt('{"a\\\\":[[[1]]]}', 3)).toEqual(['a\\', 0, 0]);
    expect(tooDeepAt('{"x":"\\\\\\"[[[[[[\\\\"}', 3)).toBeNull();
  });
});

describe('paramOfDeepPath', () => {
  it('names the free-form field the path runs through, else the first key', () => {
    expect(paramOfDeepPath(['options', 'extract', 'properties', 'a'])).toBe('options.extract');
    expect(paramOfDeepPath(['items', 3, 'options', 'metadata', 'k'])).toBe('items.3.options.metadata');
    expect(paramOfDeepPath(['extract', 'a'], 'options.')).toBe('options.extract');
    expect(paramOfDeepPath(['url', 'x'])).toBe('url');
    expect(paramOfDeepPath([0, 0, 0])).toBeUndefined();
  });
});

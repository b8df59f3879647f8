import { describe, expect, it } from 'vitest';
import { ID_PREFIXES, isId, newId } from '../../server/src/ids.ts';
import { listOf, page } from '../../server/src/domain/pagination.ts';

describe('ids', () => {
  it('mints prefix + ULID for every kind, sortable by creation', () => {
    for (const kind of Object.keys(ID_PREFIXES) as Array<keyof typeof ID_PREFIXES>) {
      const id = newId(kind);
      expect(id).toMatch(new RegExp(`^${ID_PREFIXES[kind]}_[0-9A-HJKMNP-TV-Z]{26}$`));
      expect(isId(kind, id)).toBe(true);
    }
    const a = newId('analysis');
    const b = newId('analysis');
    expect(a < b).toBe(true);
    expect(isId('analysis', 'bat_01JC0000000000000000000000')).toBe(false);
    expect(isId('analysis', 'an_not-a-ulid')).toBe(false);
  });
});

describe('pagination helper', () => {
  it('uses the extra row only to tell has_more', () => {
    expect(page([1, 2, 3], 2)).toEqual({ rows: [1, 2], hasMore: true });
    expect(page([1, 2], 2)).toEqual({ rows: [1, 2], hasMore: false });
    expect(listOf('/v1/x', [1], false)).toEqual({ object: 'list', data: [1], has_more: false, url: '/v1/x' });
  });
});

/** The list envelope of every list route: `object: list`, `data`, `has_more`, `url`. */
export interface ListEnvelope<T> {
  object: 'list';
  data: T[];
  has_more: boolean;
  url: string;
}

export function listOf<T, E extends Record<string, unknown> = Record<string, never>>(url: string, data: T[], hasMore: boolean, extra?: E): ListEnvelope<T> & E {
  return { object: 'list', data, has_more: hasMore, url, ...(extra ?? ({} as E)) };
}

/**
 * Cursor pagination over rows fetched with `limit + 1`: the extra row only tells whether more exist.
 * Repositories order by id (ULIDs sort by creation) and filter `id < starting_after` (newest first)
 * or `id > starting_after` (oldest first), with every filter applied before the limit.
 */
export function page<T>(rowsPlusOne: T[], limit: number): { rows: T[]; hasMore: boolean } {
  return { rows: rowsPlusOne.slice(0, limit), hasMore: rowsPlusOne.length > limit };
}

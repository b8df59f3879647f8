/**
 * Text the service stores must be valid Unicode without NUL: PostgreSQL's `text` refuses U+0000 and its `jsonb`
 * refuses both `\u0000` and a lone UTF-16 surrogate (`\ud800`), so such a string reached the database as a 500. They
 * are refused at the door instead: 422 `invalid_parameter`, `param` naming the value (`metadata.customer`,
 * `items.0.filename`, `type`), nothing stored. The request's query and body are checked in http/clean-strings.ts, a
 * multipart `options` field in domain/analysis/options.ts.
 */

/** Valid Unicode (no lone surrogate) and no NUL. */
export function isCleanString(s: string): boolean {
  return s.isWellFormed() && !s.includes('\u0000');
}

/** The dotted path of the first unclean string (or key) in a JSON value, or undefined. */
export function firstUncleanPath(value: unknown, path = ''): string | undefined {
  if (typeof value === 'string') return isCleanString(value) ? undefined : path;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = firstUncleanPath(value[i], path === '' ? String(i) : `${path}.${i}`);
      if (found !== undefined) return found;
    }
    return undefined;
  }
  if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
      const here = path === '' ? k : `${path}.${k}`;
      if (!isCleanString(k)) return here;
      const found = firstUncleanPath(v, here);
      if (found !== undefined) return found;
    }
  }
  return undefined;
}

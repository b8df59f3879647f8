/**
 * `mask_fields` (#29, docs/verification-links.md "Masked fields"): what a verification link sends out (its events and
 * callback, the webhooks of its analyses) hides the fields the link (or its template) names. Pure.
 *
 * - A string keeps its first third, at most 4 characters, and shows `*` for every other letter or digit (spaces,
 *   dashes and other separators stay): `X1234567L` -> `X12******`, `1985-07-21` -> `198*-**-**`.
 * - Any other value (a number, a boolean, a list, an object) becomes null.
 * - `mrz` and `barcode_data` repeat the other fields: they are masked whenever any field is.
 * - A check or reason message that quotes a masked value quotes it masked.
 */
import type { components } from '../../../../generated/api.d.ts';

type Analysis = components['schemas']['Analysis'];

/** Fields that carry the others (masked whenever any field is). */
const CARRIERS = ['mrz', 'barcode_data'];

export function maskValue(value: unknown): unknown {
  if (typeof value !== 'string') return null;
  const chars = Array.from(value);
  const keep = Math.min(4, Math.floor(chars.length / 3));
  return chars.map((c, i) => (i < keep || !/[\p{L}\p{N}]/u.test(c) ? c : '*')).join('');
}

/**
 * The analysis with `fields` masked (a copy); the body itself when there is nothing to mask or it has no fields (a
 * classification).
 */
export function maskAnalysis<T extends object>(body: T, fields: readonly string[] | null | undefined): T {
  if (!fields || fields.length === 0 || !('fields' in body)) return body;
  const a = body as unknown as Analysis;
  const names = new Set([...fields, ...CARRIERS]);
  const out = { ...a, fields: { ...a.fields } };
  const quoted: Array<[string, string]> = [];
  for (const [name, f] of Object.entries(a.fields ?? {})) {
    if (!names.has(name) || f.value === null || f.value === undefined) continue;
    const masked = maskValue(f.value);
    out.fields[name] = { ...f, value: masked };
    const texts = typeof f.value === 'string' ? [f.value, ...f.value.split('\n')] : typeof f.value === 'number' ? [String(f.value)] : [];
    for (const t of texts) if (t.length >= 3) quoted.push([t, typeof masked === 'string' && masked.length === t.length ? masked : maskValue(t) as string]);
  }
  // Longest first, so that a line of the zone is replaced before a field it contains.
  quoted.sort((x, y) => y[0].length - x[0].length);
  const hide = (message: string) => quoted.reduce((m, [from, to]) => m.split(from).join(to), message);
  out.checks = (a.checks ?? []).map((c) => ({ ...c, message: hide(c.message) }));
  if (a.verdict) out.verdict = { ...a.verdict, reasons: a.verdict.reasons.map((r) => ({ ...r, message: hide(r.message) })) };
  return out as unknown as T;
}

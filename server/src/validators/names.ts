/** Name folding and tolerant name comparison (used by `holder`, MRZ and AAMVA comparisons). */

const PARTICLES = new Set(['de', 'del', 'la', 'las', 'los', 'y', 'i', 'e', 'da', 'das', 'do', 'dos', 'van', 'von', 'der', 'den', 'di', 'du', 'le']);

/** NFD, strip diacritics, lowercase, `<`, punctuation and separators as spaces, collapse spaces. */
export function normaliseName(s: string | null | undefined): string {
  if (!s) return '';
  return s
    .normalize('NFD')
    .replace(/\p{M}+/gu, '')
    .replace(/ß/g, 'ss')
    .replace(/[æÆ]/g, 'ae')
    .replace(/[øØ]/g, 'o')
    .replace(/[łŁ]/g, 'l')
    .replace(/[đĐ]/g, 'd')
    .toLowerCase()
    .replace(/[<,.;:'’`´"\-_/\\()]+/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
}
export const foldName = normaliseName;

/** Optimal string alignment (restricted Damerau-Levenshtein) distance. */
export function damerauLevenshtein(a: string, b: string): number {
  const n = a.length;
  const m = b.length;
  if (n === 0) return m;
  if (m === 0) return n;
  const d: number[][] = [];
  for (let i = 0; i <= n; i++) d.push(new Array<number>(m + 1).fill(0));
  for (let i = 0; i <= n; i++) d[i][0] = i;
  for (let j = 0; j <= m; j++) d[0][j] = j;
  for (let i = 1; i <= n; i++) {
    for (let j = 1; j <= m; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      d[i][j] = Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
      }
    }
  }
  return d[n][m];
}

/** Typos tolerated for a string of this length: 1 per ~6 characters (0 below 4 characters). */
export function allowedTypos(len: number): number {
  return Math.floor((len + 2) / 6);
}

export function tokensEqualFuzzy(a: string, b: string): boolean {
  if (a === b) return true;
  return damerauLevenshtein(a, b) <= allowedTypos(Math.max(a.length, b.length));
}

export interface NameMatch {
  match: boolean;
  method: 'exact' | 'reordered' | 'subset' | 'fuzzy' | 'concatenated' | 'none';
  a: string;
  b: string;
  distance?: number;
  matched_tokens?: number;
}

function meaningfulTokens(s: string): string[] {
  const t = s.split(' ').filter(Boolean);
  const m = t.filter((x) => !PARTICLES.has(x));
  return m.length > 0 ? m : t;
}

/** Greedy one-to-one fuzzy matching of the tokens of `small` into `big`; returns the count matched. */
function matchTokens(small: string[], big: string[], fuzzy: boolean): number {
  const used = new Array<boolean>(big.length).fill(false);
  let count = 0;
  for (const t of small) {
    let idx = big.findIndex((x, i) => !used[i] && x === t);
    if (idx < 0 && fuzzy) idx = big.findIndex((x, i) => !used[i] && tokensEqualFuzzy(x, t));
    if (idx >= 0) {
      used[idx] = true;
      count++;
    }
  }
  return count;
}

/**
 * Tolerant comparison of two person names: accent and case insensitive, any token order
 * (flexible surname order), particles (de, del, la...) ignored, a missing second surname or
 * middle name tolerated when at least two tokens match, and small typos (Damerau-Levenshtein
 * <= 1 per ~6 characters per token).
 */
export function fuzzyNameMatch(aRaw: string | null | undefined, bRaw: string | null | undefined): NameMatch {
  const a = normaliseName(aRaw);
  const b = normaliseName(bRaw);
  const base = { a, b };
  if (!a || !b) return { ...base, match: false, method: 'none' };
  if (a === b) return { ...base, match: true, method: 'exact', distance: 0 };
  const ta = meaningfulTokens(a);
  const tb = meaningfulTokens(b);
  const sa = [...ta].sort().join(' ');
  const sb = [...tb].sort().join(' ');
  if (sa === sb) return { ...base, match: true, method: 'reordered', distance: 0 };
  const [small, big] = ta.length <= tb.length ? [ta, tb] : [tb, ta];
  const exactCount = matchTokens(small, big, false);
  const fuzzyCount = matchTokens(small, big, true);
  if (fuzzyCount === small.length && (small.length === big.length || small.length >= 2)) {
    const method = exactCount === small.length ? (small.length === big.length ? 'reordered' : 'subset') : 'fuzzy';
    return { ...base, match: true, method, matched_tokens: fuzzyCount };
  }
  // Joined particles or split compound names ("DELACRUZ" vs "de la Cruz").
  const ja = a.replace(/ /g, '');
  const jb = b.replace(/ /g, '');
  const dist = damerauLevenshtein(ja, jb);
  if (dist <= allowedTypos(Math.max(ja.length, jb.length))) {
    return { ...base, match: true, method: 'concatenated', distance: dist };
  }
  return { ...base, match: false, method: 'none', matched_tokens: fuzzyCount, distance: dist };
}

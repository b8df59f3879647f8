// The copies of the EU trusted lists as trusted-list-refresh.ts handles them: read from a seed directory or a database
// row, stored back as a row, checked against their signers.
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import type { TrustedListRow } from '../../db/trusted-lists.ts';
import { readTrustList, territoryOfFile, type HeldList, type ListCopy } from '../../validators/pdf-signature/trusted-lists.ts';

/** Seed copies of a directory: lotl.xml and <territory>.xml (GR.xml is Greece's, EL). A missing directory gives none. */
export async function readSeedDir(dir: string): Promise<ListCopy[]> {
  const names = await readdir(dir).catch(() => [] as string[]);
  const copies: ListCopy[] = [];
  for (const n of names.sort()) {
    const territory = n === 'lotl.xml' ? 'EU' : territoryOfFile(n);
    if (!territory) continue;
    try {
      copies.push({ territory, bytes: new Uint8Array(await readFile(path.join(dir, n))), kind: 'seed', origin: `${n} in ${dir}`, fetchedAt: null, url: null });
    } catch {
      // unreadable: as if absent
    }
  }
  return copies;
}

export const fromRow = (r: TrustedListRow): ListCopy => ({ territory: r.territory, bytes: r.xml, kind: 'database', origin: 'the database', fetchedAt: new Date(r.fetched_at), url: r.source_url });

export const chainKey = (pivots: Array<{ url: string; sha256: string }>): string => pivots.map((p) => `${p.url} ${p.sha256}`).join('\n');

/** Whether `xml` is a list that verifies with `signers` (what else `readTrustList` refuses is said when it is chosen). */
export function verifiesWith(xml: Uint8Array, signers: Uint8Array[], now: Date): boolean {
  try {
    readTrustList(xml, signers, now);
    return true;
  } catch {
    return false;
  }
}

export function rowOf(h: HeldList): TrustedListRow {
  return {
    territory: h.territory,
    xml: h.bytes,
    sha256: h.sha256,
    sequence: h.list.sequence,
    issued_at: h.list.issued!,
    next_update: h.list.nextUpdate,
    source_url: h.url ?? '',
    fetched_at: h.fetchedAt!,
  };
}

/** 86400000 -> "24 h", 1800000 -> "30 min". */
export function formatInterval(ms: number): string {
  if (ms % 86_400_000 === 0 && ms >= 2 * 86_400_000) return `${ms / 86_400_000} days`;
  if (ms % 3_600_000 === 0) return `${ms / 3_600_000} h`;
  return `${Math.round(ms / 60_000)} min`;
}

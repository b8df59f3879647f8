/**
 * Which catalogue types are two-sided cards: one rule for test mode (which simulates sides) and live mode (which
 * sees them), so that `side` and `side_missing` mean the same in both.
 */
import type { CatalogueEntry } from './vocabulary.ts';

/** Paper documents, booklets and single-sided cards among the identity/residence/driving types. */
const SINGLE_SIDED = new Set(['br_ctps', 'pt_eu_registration_certificate', 'it_paper_id', 'us_citizen_id_card', 'visa', 'international_driving_permit', 'es_nie_certificate']);

/** Whether the type is a two-sided card (side `both` by default; `front` / `back` / `side_missing` apply). */
export function isTwoSided(entry: CatalogueEntry): boolean {
  if (entry.type === 'es_dni_front' || entry.type === 'es_dni_back' || SINGLE_SIDED.has(entry.type)) return false;
  if (entry.type.includes('passport') && entry.mrz !== 'TD1') return false;
  return entry.mrz === 'TD1' || (['identity', 'residence', 'driving'].includes(entry.category) && entry.fields.includes('expiry_date'));
}


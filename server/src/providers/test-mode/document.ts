/**
 * Builds the field values of one simulated document: a person, a timeline, the identifiers, organisations and
 * amounts the type carries, then the MRZ / PDF417 payload from those values, then the scenario's deliberate defects.
 * What each part simulates has its own file: context.ts, numbers.ts, texts.ts, organisations.ts, fields.ts, codes.ts.
 */

import type { CatalogueEntry } from '../../catalogue/index.ts';
import { addDays } from './dates.ts';
import * as ids from './ids.ts';
import { birthCheckPosition } from './mrz.ts';
import type { Person } from './person.ts';
import { type BuildOptions, Ctx } from './context.ts';
import { value } from './fields.ts';
import { buildBarcode, buildMrz } from './codes.ts';

export type { BuildOptions } from './context.ts';
export { UNIVERSAL_COUNTRIES } from './context.ts';

/** Checksummed schemes, in the order `bad_checksum` prefers them. */
const CHECKSUM_SCHEMES = ['es_dni', 'es_nie', 'es_nif', 'es_cif', 'pt_cc', 'pt_nif', 'fr_nir', 'it_cf', 'br_cpf', 'br_cnpj', 'es_nss', 'es_ccc', 'iban', 'eu_vat'];

const FORMAT_SCHEMES = ['us_ssn', 'us_dl'];

export interface BuiltDocument {
  values: Record<string, unknown>;
  country: string;
  person: Person;
  /** Field whose check digit was broken by `bad_checksum` (`mrz` when the MRZ itself), or null. */
  corrupted: string | null;
}

/** Field validators whose check digit `bad_checksum` breaks, in order of preference. */
export function checksumTarget(entry: CatalogueEntry): { field: string; scheme: string } | { field: 'mrz'; scheme: null } | null {
  const byScheme = (schemes: string[]) =>
    entry.field_validators
      .filter((fv) => schemes.includes(fv.scheme))
      .sort((a, b) => schemes.indexOf(a.scheme) - schemes.indexOf(b.scheme) || entry.fields.indexOf(a.field) - entry.fields.indexOf(b.field))[0];
  const holderFields = ['document_number', 'id_number', 'tax_id'];
  const holderChecksum = entry.field_validators.find((fv) => holderFields.includes(fv.field) && CHECKSUM_SCHEMES.includes(fv.scheme));
  if (holderChecksum) return { field: holderChecksum.field, scheme: holderChecksum.scheme };
  const any = byScheme(CHECKSUM_SCHEMES);
  if (any) return { field: any.field, scheme: any.scheme };
  if (entry.mrz) return { field: 'mrz', scheme: null };
  const fmt = byScheme(FORMAT_SCHEMES);
  if (fmt) return { field: fmt.field, scheme: fmt.scheme };
  return null;
}

export function buildDocument(o: BuildOptions): BuiltDocument {
  const c = new Ctx(o);
  const values: Record<string, unknown> = {};
  for (const f of c.entry.fields) values[f] = value(f, c, values);
  // es_passport's personal number is the DNI printed as id_number (computed after it).
  if (c.has('personal_number') && c.type === 'es_passport') values.personal_number = values.id_number;

  let corrupted: string | null = null;
  if (o.mods.has('bad_checksum')) {
    const target = checksumTarget(c.entry);
    if (target && target.scheme) {
      values[target.field] = ids.corruptCheck(target.scheme, String(values[target.field]), { state: String(values.region ?? '') });
      if (c.type === 'es_passport' && target.field === 'id_number') values.personal_number = values.id_number;
      corrupted = target.field;
    } else if (target) corrupted = 'mrz';
  }
  if (c.has('mrz')) {
    let lines = buildMrz(c, values);
    if (o.mods.has('mismatch_mrz')) {
      // Same MRZ with another birth date (its check digits recomputed): checksums pass, visual comparison fails.
      const other = { ...values, birth_date: addDays(String(values.birth_date), 397) };
      lines = buildMrz(c, other);
    }
    if (corrupted === 'mrz') {
      const [li, col] = birthCheckPosition(lines);
      const line = lines[li];
      const wrong = String((Number(line[col]) + 3) % 10);
      lines = lines.map((l, i) => (i === li ? l.slice(0, col) + wrong + l.slice(col + 1) : l));
    }
    values.mrz = lines.join('\n');
  }
  if (c.has('barcode_data')) values.barcode_data = buildBarcode(c, values);
  return { values, country: c.country, person: c.person, corrupted };
}

/** Generates a value for one dictionary field of an arbitrary extraction schema, in the context of a type. */
export function valueFor(field: string, o: BuildOptions): unknown {
  const c = new Ctx(o);
  return value(field, c, {});
}

/** Shared helpers of the test-mode tests: inputs, and the validators the pipeline applies to a reading. */
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { allEntries, type CatalogueEntry } from '../../../server/src/catalogue/index.ts';
import type { ReadInput, Reading } from '../../../server/src/providers/types.ts';
import { simulateReading, dateFamily } from '../../../server/src/providers/test-mode/index.ts';
import {
  aamvaMatchesVisual,
  dateConsistency,
  invoiceTotals,
  mrzMatchesVisual,
  validateIdNumber,
  validateMrzChecksums,
  type ValidatorResult,
} from '../../../server/src/validators/index.ts';

export const REF = '2026-03-15';

export function input(filename: string, over: Partial<ReadInput> = {}): ReadInput {
  return {
    bytes: new Uint8Array([0xff, 0xd8, 0xff]),
    filename,
    mime: filename.endsWith('.pdf') ? 'application/pdf' : 'image/jpeg',
    pages: 1,
    kind: 'analysis',
    expect: null,
    extract: true,
    language: 'es',
    holder: null,
    referenceDate: REF,
    precise_bboxes: false,
    ...over,
  };
}

export function read(filename: string, over: Partial<ReadInput> = {}): Reading {
  return simulateReading(input(filename, over));
}

export const ENTRIES = allEntries();

export function values(r: Reading): Record<string, any> {
  return Object.fromEntries(Object.entries(r.fields).map(([k, f]) => [k, f.value]));
}

const addFormats = (addFormatsModule as unknown as { default?: typeof addFormatsModule }).default ?? addFormatsModule;
const ajv = new Ajv2020({ allErrors: true, strict: false });
(addFormats as unknown as (a: Ajv2020) => void)(ajv);
const compiled = new Map<string, ReturnType<typeof ajv.compile>>();

/** Errors of the values against the entry's JSON Schema, every field required. */
export function schemaErrors(entry: CatalogueEntry, v: Record<string, unknown>): string[] {
  let validate = compiled.get(entry.type);
  if (!validate) {
    validate = ajv.compile({ ...entry.schema, required: [...entry.fields], additionalProperties: false });
    compiled.set(entry.type, validate);
  }
  return validate(v) ? [] : (validate.errors ?? []).map((e) => `${e.instancePath} ${e.message}`);
}

export function mrzVisual(entry: CatalogueEntry, v: Record<string, any>) {
  const surname = [v.last_name, v.second_last_name].filter(Boolean).join(' ') || null;
  return {
    document_number: v.document_number ?? null,
    surname,
    given_names: v.first_name ?? null,
    full_name: surname ? null : v.full_name ?? null,
    birth_date: v.birth_date ?? null,
    expiry_date: v.expiry_date ?? null,
    nationality: v.nationality ?? null,
    sex: v.sex ?? null,
  };
}

/** Every deterministic validator that applies to the reading, as the pipeline runs them. */
export function runValidators(entry: CatalogueEntry, r: Reading): ValidatorResult[] {
  const v = values(r);
  const out: ValidatorResult[] = [];
  for (const fv of entry.field_validators) {
    if (typeof v[fv.field] !== 'string') continue;
    out.push(...validateIdNumber(fv.scheme, v[fv.field], { field: fv.field, birth_date: v.birth_date, sex: v.sex, state: v.region, reference_date: REF }));
  }
  if (entry.mrz && typeof v.mrz === 'string') {
    out.push(validateMrzChecksums(v.mrz, { referenceDate: REF, expectedFormat: entry.mrz }));
    out.push(mrzMatchesVisual(v.mrz, mrzVisual(entry, v), { referenceDate: REF }));
  }
  if (entry.validators.includes('invoice_totals')) {
    out.push(
      invoiceTotals({
        lines: (v.line_items ?? []).map((l: any) => ({ quantity: l.quantity, unit_price: l.unit_price, amount: l.amount, vat_rate: v.tax_rate })),
        taxes: [{ rate: v.tax_rate, base: v.tax_base, vat: v.tax_amount }],
        subtotal: v.tax_base,
        vat_total: v.tax_amount,
        withholding: v.withholding_amount ?? null,
        total: v.total_amount,
      }),
    );
  }
  if (entry.validators.includes('aamva_matches_visual') && typeof v.barcode_data === 'string') {
    out.push(
      aamvaMatchesVisual(v.barcode_data, {
        document_number: v.document_number, last_name: v.last_name, first_name: v.first_name, birth_date: v.birth_date, expiry_date: v.expiry_date,
        issue_date: v.issue_date, sex: v.sex, state: v.region, postal_code: v.postal_code,
      }),
    );
  }
  if (entry.validators.includes('date_consistency')) {
    out.push(dateConsistency({ birth_date: v.birth_date, issue_date: v.issue_date, expiry_date: v.expiry_date, family: dateFamily(entry), country: r.document?.country }));
  }
  return out;
}

export const failed = (rs: ValidatorResult[]) => rs.filter((x) => !x.passed).map((x) => `${x.code}:${x.message_key} ${JSON.stringify(x.params ?? {})}`);

/** Date fields that may lie after the reference date on a valid document. */
export const FUTURE_DATES = new Set(['expiry_date', 'end_date', 'due_date', 'admit_until_date', 'inspection_expiry_date', 'period_end_date']);

/** Types read as PDFs in the catalogue loop too (certificates, statements, forms...). */
export function pdfish(entry: CatalogueEntry): boolean {
  return !['identity', 'residence', 'driving'].includes(entry.category);
}

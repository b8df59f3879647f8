/**
 * Deterministic validators of Cotejo (issue #5, PDF signatures excepted: see ./pdf-signature).
 * Pure functions: no I/O, no clock reads. See docs/validators.md for rules, sources and the
 * deliberate differences from the collected test vectors.
 */
import type { ValidatorResult, CheckCode } from './types.ts';
import { validateNif } from './nif.ts';
import { validateIdNumber, FIELD_SCHEMES, type FieldScheme, type IdNumberContext } from './id-number.ts';
import { validateMrzChecksums, mrzMatchesVisual, type VisualFields, type MrzParseResult } from './mrz.ts';
import { validateIban, type IbanOptions } from './iban.ts';
import { invoiceTotals, type InvoiceInput } from './invoice.ts';
import { validateCsv, type CsvFormat } from './csv.ts';
import { dateConsistency, type DateConsistencyInput } from './dates.ts';
import { aamvaMatchesVisual, type AamvaParseResult, type AamvaVisual } from './aamva.ts';

export * from './types.ts';
export { normaliseName, foldName, fuzzyNameMatch, damerauLevenshtein, type NameMatch } from './names.ts';
export { validateNif, checkNif, checkDni, checkNie, checkCif, checkKlm, dniLetter, cifControl } from './nif.ts';
export { validateIdNumber, checkIdNumber, FIELD_SCHEMES, SCHEME_CODE, type FieldScheme, type IdNumberContext } from './id-number.ts';
export { checkEuVat, EU_VAT_COUNTRIES } from './eu-vat.ts';
export { checkUsDl, US_DL_FORMATS } from './us-dl.ts';
export { parseMrz, validateMrzChecksums, mrzMatchesVisual, mrzCheckDigit, mrzDate, compareMrzName, type MrzParseResult, type MrzFormat } from './mrz.ts';
export { validateIban, checkIban, checkBic, ibanCheckDigits, normaliseIban } from './iban.ts';
export {
  invoiceTotals, toCents, LINE_TOLERANCE_CENTS, SUM_TOLERANCE_CENTS, TEXT_TOTAL_TOLERANCE_CENTS, VAT_TOLERANCE_CENTS,
  type InvoiceInput, type InvoiceLine, type InvoiceTaxBreakdown, type InvoiceAllowanceCharge,
} from './invoice.ts';
export { validateCsv, checkCsv, type CsvFormat } from './csv.ts';
export { dateConsistency, notExpired, issueAgeDays, ageYears, addYears, VALIDITY_YEARS, type DocumentFamily } from './dates.ts';
export { parseAamva, aamvaMatchesVisual, aamvaDate, unescapeAamva, type AamvaParseResult } from './aamva.ts';

/** Uniform entry of the registry: one input object in, one or more results out. */
export interface ValidatorEntry<I> {
  code: CheckCode;
  description: string;
  run: (input: I) => ValidatorResult | ValidatorResult[];
}

export const VALIDATORS = {
  nif_check_digit: {
    code: 'nif_check_digit',
    description: 'Spanish NIF (DNI, NIE, K/L/M, CIF) check letter/digit',
    run: (i: { value: string; scheme?: 'es_dni' | 'es_nie' | 'es_nif' | 'es_cif'; field?: string }) => validateNif(i.value, i),
  },
  mrz_checksums: {
    code: 'mrz_checksums',
    description: 'ICAO 9303 check digits and composite of an MRZ',
    run: (i: { mrz: string | string[]; reference_date?: string; expected_format?: 'TD1' | 'TD2' | 'TD3' | 'any' }) =>
      validateMrzChecksums(i.mrz, { referenceDate: i.reference_date, expectedFormat: i.expected_format }),
  },
  mrz_matches_visual: {
    code: 'mrz_matches_visual',
    description: 'MRZ fields agree with the printed fields',
    run: (i: { mrz: string | string[] | MrzParseResult; visual: VisualFields; reference_date?: string }) =>
      mrzMatchesVisual(i.mrz, i.visual, { referenceDate: i.reference_date }),
  },
  iban_checksum: {
    code: 'iban_checksum',
    description: 'IBAN mod-97, country length and BBAN structure, national check digits (ES CCC...)',
    run: (i: { value: string } & IbanOptions) => validateIban(i.value, i),
  },
  invoice_totals: {
    code: 'invoice_totals',
    description: 'Invoice lines, bases, VAT, withholding and total add up (cent tolerance)',
    run: (i: InvoiceInput) => invoiceTotals(i),
  },
  csv_format: {
    code: 'csv_format',
    description: 'Format of a Spanish código seguro de verificación (no lookup)',
    run: (i: { value: string; expected_format?: CsvFormat; field?: string }) => validateCsv(i.value, { expectedFormat: i.expected_format, field: i.field }),
  },
  date_consistency: {
    code: 'date_consistency',
    description: 'Birth before issue before expiry, plausible validity period',
    run: (i: DateConsistencyInput) => dateConsistency(i),
  },
  id_number_checksum: {
    code: 'id_number_checksum',
    description: 'Check digit(s) of a national identifier (field scheme)',
    run: (i: { scheme: FieldScheme; value: string } & IdNumberContext) => validateIdNumber(i.scheme, i.value, i),
  },
  id_number_format: {
    code: 'id_number_format',
    description: 'Format of a national identifier without check digit (field scheme)',
    run: (i: { scheme: FieldScheme; value: string } & IdNumberContext) => validateIdNumber(i.scheme, i.value, i),
  },
  id_number_matches_birth_date: {
    code: 'id_number_matches_birth_date',
    description: 'Birth date / sex encoded in the identifier agree with the holder (FR NIR, IT CF)',
    run: (i: { scheme: FieldScheme; value: string } & IdNumberContext) =>
      validateIdNumber(i.scheme, i.value, i).filter((r) => r.code === 'id_number_matches_birth_date'),
  },
  aamva_matches_visual: {
    code: 'aamva_matches_visual',
    description: 'AAMVA PDF417 barcode fields agree with the printed fields',
    run: (i: { payload: string | AamvaParseResult; visual: AamvaVisual }) => aamvaMatchesVisual(i.payload, i.visual),
  },
} as const satisfies Record<CheckCode, ValidatorEntry<any>>;


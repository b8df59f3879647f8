/**
 * Agreement with every vector of ../shared/testdata ids/, iban/, mrz/, aamva/.
 * Each deliberate difference is listed below with its reason; the test asserts that the set of
 * disagreements is exactly the allow-list (so it cannot grow or shrink silently).
 */
import { describe, it, expect, afterAll } from 'vitest';
import { idsOutcomes, ibanOutcomes, mrzOutcomes, aamvaOutcomes, OUT_OF_SCOPE_SCHEMES, type CaseOutcome } from './agreement.ts';
import { summarise, type AgreementRow } from './testdata.ts';

const NORMALISE = 'Cotejo normalises spaces, dashes, dots and slashes before checking (spec: "normalise spaces, dashes, dots and case"); the source rejects the punctuated form';
const FORMAT_ONLY = 'source semantics are format-only (validator.js isVAT/isTaxID regex); Cotejo also verifies the check digits, which this made-up number fails';

/** Deliberate differences, keyed by case id; value = [input as in the file, reason]. */
export const DELIBERATE: Record<string, [unknown, string]> = {
  // ids/ids-combined.json
  'ids-combined[1755]': ['12345 678Z', `validator.js isIdentityCard(ES): ${NORMALISE}`],
  'ids-combined[1756]': ['12345678-Z', `validator.js isIdentityCard(ES): ${NORMALISE}`],
  'ids-combined[1788]': ['54237A', 'python-validators left-pads short DNIs with zeros; Cotejo requires the 8 printed digits (as python-stdnum and validator.js do)'],
  'ids-combined[1806]': ['AXXFAXTTD41H501D', 'validator.js computes the codice fiscale check character on the de-omocoded code; the rule (and python-stdnum, e.g. RSSMRAQRCMNFNLRG) computes it on the code as written, giving M'],
  'ids-combined[1807]': ['DML PRY/77D15H501-F', `validator.js isTaxID(it-IT): ${NORMALISE}`],
  'ids-combined[1849]': ['12.ABC.345/01DE-35', `validator.js isTaxID(pt-BR) rejects the masked alphanumeric CNPJ; ${NORMALISE} (python-stdnum accepts the same number)`],
  'ids-combined[1854]': ['29 999-999/8', `validator.js isTaxID(pt-PT): ${NORMALISE}`],
  'ids-combined[1855]': ['FRAA123456789', `fr.vat_format: ${FORMAT_ONLY}`],
  'ids-combined[1857]': ['FR40123456789', `fr.vat_format: ${FORMAT_ONLY}`],
  'ids-combined[1858]': ['FRA1123456789', `fr.vat_format: ${FORMAT_ONLY}`],
  'ids-combined[1859]': ['FR1A123456789', `fr.vat_format: ${FORMAT_ONLY}`],
  'ids-combined[1864]': ['FR 83404833048', `validator.js isVAT(FR): ${NORMALISE}`],
  'ids-combined[1866]': ['IT12345678910', `it.vat_format: ${FORMAT_ONLY}`],
  'ids-combined[1867]': ['12345678910', `it.vat_format: ${FORMAT_ONLY}`],
  'ids-combined[1875]': ['PT 123456789', `validator.js isVAT(PT): ${NORMALISE}`],
  'ids-combined[1877]': ['ESA1234567A', `es.vat_format: ${FORMAT_ONLY}`],
  'ids-combined[1878]': ['A1234567A', `es.vat_format: ${FORMAT_ONLY}`],
  'ids-combined[1881]': ['BR12.345.678/9012-34', `br.cnpj_vat: ${FORMAT_ONLY}`],
  'ids-combined[1882]': ['12.345.678/9012-34', `br.cnpj_vat: ${FORMAT_ONLY}`],
  'ids-combined[1883]': ['BR123.456.789-01', `br.cnpj_vat (CPF): ${FORMAT_ONLY}`],
  'ids-combined[1884]': ['123.456.789-01', `br.cnpj_vat (CPF): ${FORMAT_ONLY}`],
  // iban/
  'iban-combined[332]': ['IQ98 NBIQ 8501 2345 6789 012', 'ibantools accepts the electronic format only; Cotejo reads printed IBANs and removes the spaces'],
  'ibantools-cases[15]': ['IQ98 NBIQ 8501 2345 6789 012', 'ibantools accepts the electronic format only; Cotejo reads printed IBANs and removes the spaces'],
  'iban-combined[418]': ['CH4431999123000889012', 'ibantools option allowQRIBAN=false; a QR-IBAN is a valid IBAN and Cotejo has no such option'],
  'ibantools-cases[101]': ['CH4431999123000889012', 'ibantools option allowQRIBAN=false; a QR-IBAN is a valid IBAN and Cotejo has no such option'],
  'iban-combined[422]': ['DE89370400440532013000', 'ibantools test installs a custom BBAN validation function that rejects it; the IBAN itself is valid'],
  'ibantools-cases[120]': ['DE89370400440532013000', 'ibantools test installs a custom BBAN validation function that rejects it; the IBAN itself is valid'],
  // mrz/ (expected = source verdict; Cotejo follows ICAO check digits, agreeing with collector_checks)
  'cheminfo-017': [null, 'cheminfo/mrz marks ICAO specimen state code UTO invalid (ISO 3166 check); mrz_checksums checks ICAO check digits only'],
  'cheminfo-018': [null, 'UTO state code (see cheminfo-017)'],
  'cheminfo-019': [null, 'UTO state code (see cheminfo-017)'],
  'cheminfo-025': [null, 'UTO state code (see cheminfo-017)'],
  'cheminfo-027': [null, 'UTO state code (see cheminfo-017)'],
  'cheminfo-003': [null, 'OCR-noisy input: the source autocorrects confusable characters; Cotejo checks the MRZ as read (correction belongs to the reader) so the check digits fail'],
  'cheminfo-007': [null, 'OCR-noisy input, no autocorrection (see cheminfo-003)'],
  'cheminfo-010': [null, 'OCR-noisy input, no autocorrection (see cheminfo-003)'],
  'cheminfo-021': [null, 'OCR-noisy input, no autocorrection (see cheminfo-003)'],
  'cheminfo-026': [null, 'OCR-noisy input, no autocorrection (see cheminfo-003)'],
  'cheminfo-033': [null, 'OCR-noisy input, no autocorrection (see cheminfo-003)'],
};

const rows: AgreementRow[] = [];
const seen = new Set<string>();

function account(outcomes: CaseOutcome[], sourceOf: (o: CaseOutcome) => string) {
  const bySource = new Map<string, AgreementRow>();
  const disagreements: string[] = [];
  for (const o of outcomes) {
    const s = sourceOf(o);
    const row = bySource.get(s) ?? { source: s, total: 0, compared: 0, agree: 0, deliberate: 0, out_of_scope: 0 };
    bySource.set(s, row);
    row.total++;
    if (o.ours === null || o.expected === null) {
      row.out_of_scope++;
      continue;
    }
    row.compared++;
    if (o.ours === o.expected) row.agree++;
    else {
      disagreements.push(o.id);
      if (DELIBERATE[o.id]) row.deliberate++;
    }
  }
  rows.push(...bySource.values());
  return disagreements;
}

function expectExactly(disagreements: string[], prefix: (id: string) => boolean, outcomes: CaseOutcome[]) {
  const allowed = Object.keys(DELIBERATE).filter(prefix).sort();
  for (const id of disagreements) seen.add(id);
  expect([...disagreements].sort()).toEqual(allowed);
  // The allow-list names the right inputs.
  for (const id of allowed) {
    const o = outcomes.find((x) => x.id === id)!;
    if (DELIBERATE[id][0] !== null) expect(o.value).toEqual(DELIBERATE[id][0]);
  }
}

describe('agreement with ../shared/testdata', () => {
  afterAll(() => summarise(rows, 'Validator agreement per source (agree + deliberate differences = 100%)'));

  it('ids/ids-combined.json: every in-scope record agrees except the listed deliberate differences', () => {
    const outcomes = idsOutcomes();
    expect(outcomes.length).toBe(1996);
    const dis = account(outcomes, (o) => o.source);
    expectExactly(dis, (id) => id.startsWith('ids-combined['), outcomes);
    // Out-of-scope records are exactly the schemes listed as not offered by Cotejo.
    const oos = new Set(outcomes.filter((o) => o.scheme === null).map((o) => o.source));
    expect([...oos].sort()).toEqual(Object.keys(OUT_OF_SCOPE_SCHEMES).sort());
  });

  it('iban/: iban-combined and ibantools cases', () => {
    const outcomes = ibanOutcomes();
    const dis = account(outcomes, (o) => o.source);
    expectExactly(dis, (id) => id.startsWith('iban') , outcomes);
  });

  it('mrz/: source verdicts (with deliberate differences) and every collector check digit', () => {
    const outcomes = mrzOutcomes();
    expect(outcomes.length).toBe(73);
    const dis = account(outcomes, (o) => o.source);
    expectExactly(dis, (id) => /^(cheminfo|ZeroPass|dmrtd)-/.test(id), outcomes);
    // Independent recomputation: 100% per-check agreement with collector_checks, no exceptions.
    const mismatches = outcomes.filter((o) => o.checkMismatches.length > 0).map((o) => `${o.id}:${o.checkMismatches.join(',')}`);
    expect(mismatches).toEqual([]);
  });

  it('aamva/: header, designators, elements and parsed fields', () => {
    const outcomes = aamvaOutcomes();
    const dis = account(outcomes, (o) => o.source);
    expectExactly(dis, (id) => id.startsWith('aamva'), outcomes);
    const mism = outcomes.filter((o) => o.fieldMismatches.length > 0).map((o) => `${o.id}:${o.fieldMismatches.join(',')}`);
    expect(mism).toEqual([]);
  });

  it('the allow-list has no stale entries', () => {
    expect([...seen].sort()).toEqual(Object.keys(DELIBERATE).sort());
  });
});

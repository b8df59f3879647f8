import type { ObjectSchema } from '../../server/src/catalogue/index.ts';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  allEntries,
  CATEGORIES,
  CHECK_NAMES,
  FIELD_DICTIONARY,
  FIELD_SCHEME_INFO,
  FIELD_SCHEMES,
  foldText,
  getEntry,
  I9_LISTS,
  isAlpha3,
  ISO_ALPHA3,
  LANGUAGES,
  MRZ_FORMATS,
  resolveExpect,
  searchEntries,
  toDocumentType,
  VALIDATOR_NAMES,
  type CatalogueEntry,
} from '../../server/src/catalogue/index.ts';
import { publishedLine, renderDocumentTypesMarkdown } from '../../server/src/catalogue/docs.ts';
import { FIELD_SCHEMES as VALIDATOR_FIELD_SCHEMES, SCHEME_CODE } from '../../server/src/validators/index.ts';

const entries = allEntries();
const root = new URL('../../', import.meta.url);
const has = (e: CatalogueEntry, ...fields: string[]) => fields.some((f) => e.fields.includes(f));
const ids = (list: readonly CatalogueEntry[]) => list.map((e) => e.type);
const IDENTITY_LIKE = ['identity', 'residence', 'driving'];

describe('catalogue size and identity', () => {
  it('has at least the 167 types of the specification', () => {
    expect(entries.length).toBeGreaterThanOrEqual(167);
  });

  it('uses all 15 categories, in the specification order', () => {
    expect(CATEGORIES).toEqual([
      'identity', 'residence', 'driving', 'certificate', 'health', 'education', 'employment', 'tax', 'finance',
      'address', 'legal', 'vehicle', 'civil', 'sports', 'other',
    ]);
    for (const c of CATEGORIES) expect(entries.some((e) => e.category === c), c).toBe(true);
    for (const e of entries) expect(CATEGORIES, e.type).toContain(e.category);
  });

  it('has unique snake_case ids, sorted', () => {
    const list = ids(entries);
    expect(new Set(list).size).toBe(list.length);
    for (const id of list) expect(id).toMatch(/^[a-z][a-z0-9]*(_[a-z0-9]+)*$/);
    expect([...list].sort()).toEqual(list);
  });

  it('keeps every published id and slug (renaming or removing one breaks clients)', () => {
    // test/unit/catalogue/published.tsv lists every published type id with its slugs (es, en, pt, fr).
    // `node scripts/catalogue-docs.ts` appends new types; a published line is never edited or removed.
    const lines = readFileSync(new URL('test/unit/catalogue/published.tsv', root), 'utf8')
      .split('\n')
      .filter((l) => l && !l.startsWith('#'));
    const current = new Map(entries.map((e) => [e.type, publishedLine(e)]));
    const publishedIds = new Set<string>();
    for (const line of lines) {
      const id = line.split('\t')[0];
      publishedIds.add(id);
      expect(current.get(id), `published type ${id} changed or disappeared`).toBe(line);
    }
    expect(ids(entries).filter((id) => !publishedIds.has(id)), 'new types: run node scripts/catalogue-docs.ts').toEqual([]);
  });

  it('prefixes national ids with the alpha-2 code and leaves universal ones unprefixed', () => {
    for (const e of entries) {
      if (e.countries.includes('*')) expect(e.type, e.type).not.toMatch(/^(es|pt|fr|it|br|us|de|nl|be|at|ie|pl|ro|se|gb|eu)_/);
      else expect(e.type, e.type).toMatch(/^[a-z]{2}_/);
    }
  });

  it('covers the Spanish depth the product needs', () => {
    for (const id of [
      'es_dni_front', 'es_dni_back', 'es_dni', 'es_nie_certificate', 'es_tie', 'es_passport', 'es_driving_license',
      'es_census_certificate', 'es_criminal_record_certificate', 'es_sex_offender_certificate', 'es_work_life_report',
      'es_payslip', 'es_aeat_tax_compliance_certificate', 'es_aeat_income_tax_certificate', 'es_modelo_303',
      'es_modelo_390', 'es_modelo_100', 'es_modelo_130', 'es_modelo_111', 'es_modelo_190', 'es_modelo_200',
      'es_self_employed_receipt', 'es_university_degree', 'es_bachillerato_title', 'es_eso_title',
      'es_official_medical_certificate', 'es_sports_fitness_certificate', 'es_sports_federation_license',
      'es_family_book', 'es_birth_certificate', 'es_marriage_certificate', 'es_death_certificate',
      'es_vehicle_technical_sheet', 'es_vehicle_registration', 'es_notarial_deed', 'es_employment_contract',
      'es_lease_agreement', 'es_bank_account_certificate', 'es_invoice', 'es_payment_receipt', 'es_utility_bill',
      'es_health_card', 'es_disability_certificate', 'es_sepe_certificate',
      'passport', 'national_id_card', 'driving_license', 'invoice', 'payment_receipt', 'bank_statement', 'certificate',
      'utility_bill', 'payslip', 'employment_contract', 'lease_agreement', 'medical_certificate', 'diploma',
      'vehicle_registration', 'power_of_attorney', 'unknown_document',
    ]) {
      expect(getEntry(id), id).toBeDefined();
    }
  });
});

describe('texts', () => {
  it('has label, description and slug in es, en, pt and fr', () => {
    for (const e of entries) {
      for (const map of [e.labels, e.descriptions, e.slugs]) {
        expect(Object.keys(map).sort(), e.type).toEqual([...LANGUAGES].sort());
        for (const lang of LANGUAGES) expect(map[lang].trim().length, `${e.type} ${lang}`).toBeGreaterThan(0);
      }
      for (const lang of LANGUAGES) expect(e.descriptions[lang], `${e.type} ${lang}`).toMatch(/[.!?]$/);
    }
  });

  it('has kebab-case ASCII slugs, unique per language and across languages', () => {
    const owner = new Map<string, string>();
    for (const e of entries) {
      for (const lang of LANGUAGES) {
        const slug = e.slugs[lang];
        expect(slug, `${e.type} ${lang}`).toMatch(/^[a-z0-9]+(-[a-z0-9]+)*$/);
        const prev = owner.get(slug);
        expect(prev === undefined || prev === e.type, `slug ${slug}: ${prev} and ${e.type}`).toBe(true);
        owner.set(slug, e.type);
      }
    }
  });

  it('has unique labels per language', () => {
    for (const lang of LANGUAGES) {
      const labels = entries.map((e) => e.labels[lang]);
      expect(new Set(labels).size, lang).toBe(labels.length);
    }
  });

  it('has keywords that are non-empty strings', () => {
    for (const e of entries) {
      expect(e.keywords.length, e.type).toBeGreaterThan(0);
      for (const k of e.keywords) expect(k.trim().length, e.type).toBeGreaterThan(0);
    }
  });
});

describe('fields and schema', () => {
  it('has a schema property for every field and a field for every property', () => {
    for (const e of entries) {
      expect(e.schema.type, e.type).toBe('object');
      expect(Object.keys(e.schema.properties), e.type).toEqual([...e.fields]);
      expect(new Set(e.fields).size, e.type).toBe(e.fields.length);
      expect('required' in e.schema, e.type).toBe(false);
    }
  });

  it('uses English snake_case field names from the dictionary', () => {
    for (const e of entries) {
      for (const f of e.fields) {
        expect(f, e.type).toMatch(/^[a-z][a-z0-9]*(_[a-z0-9]+)*$/);
        expect(FIELD_DICTIONARY[f], `${e.type}.${f}`).toBeDefined();
      }
    }
  });

  it('describes every property in Spanish and types it', () => {
    const spanish = /[áéíóúñ]|\b(de|del|la|el|los|las|en|por|con|sin|para|que|o|y)\b/i;
    const walk = (name: string, p: any) => {
      expect(typeof p.description === 'string' && p.description.length > 0, name).toBe(true);
      expect(p.description, name).toMatch(spanish);
      expect(['string', 'number', 'integer', 'boolean', 'array', 'object'], name).toContain(p.type);
      if (p.items) walk(`${name}[]`, p.items);
      for (const [k, v] of Object.entries(p.properties ?? {})) walk(`${name}.${k}`, v);
    };
    for (const e of entries) for (const [k, p] of Object.entries(e.schema.properties)) walk(`${e.type}.${k}`, p);
  });

  it('marks date fields with format date, and only them', () => {
    for (const e of entries) {
      for (const [k, p] of Object.entries(e.schema.properties)) {
        if (k.endsWith('_date')) expect(p, `${e.type}.${k}`).toMatchObject({ type: 'string', format: 'date' });
        else expect(p.format, `${e.type}.${k}`).toBeUndefined();
      }
    }
  });

  it('closes sex with the enum M, F, X', () => {
    for (const e of entries) {
      if (has(e, 'sex')) expect(e.schema.properties.sex.enum, e.type).toEqual(['M', 'F', 'X']);
    }
  });
});

describe('vocabularies', () => {
  it('uses only known validators, schemes and checks, without duplicates', () => {
    for (const e of entries) {
      for (const v of e.validators) expect(VALIDATOR_NAMES, e.type).toContain(v);
      for (const c of e.checks) expect(CHECK_NAMES, e.type).toContain(c);
      expect(new Set(e.validators).size, e.type).toBe(e.validators.length);
      expect(new Set(e.checks).size, e.type).toBe(e.checks.length);
      for (const fv of e.field_validators) {
        expect(FIELD_SCHEMES, e.type).toContain(fv.scheme);
        expect(e.fields, `${e.type} field validator`).toContain(fv.field);
      }
    }
  });

  it('lists the closed vocabularies of the brief', () => {
    expect(VALIDATOR_NAMES).toEqual(expect.arrayContaining([
      'nif_check_digit', 'mrz_checksums', 'mrz_matches_visual', 'iban_checksum', 'invoice_totals', 'csv_format',
      'date_consistency', 'id_number_checksum', 'id_number_format', 'id_number_matches_birth_date',
      'aamva_matches_visual', 'not_expired', 'holder', 'age', 'aamva_barcode', 'id_number', 'pdf_signature', 'i9_list',
    ]));
    expect(FIELD_SCHEMES).toEqual(expect.arrayContaining([
      'es_dni', 'es_nie', 'es_nif', 'es_cif', 'es_csv', 'es_ccc', 'es_nss', 'pt_nif', 'pt_cc', 'fr_nir', 'it_cf',
      'br_cpf', 'br_cnpj', 'us_ssn', 'us_dl', 'us_zip', 'iban', 'bic', 'eu_vat',
    ]));
    expect(CHECK_NAMES).toEqual([
      'not_expired', 'reference_date', 'max_age_days', 'min_age_years', 'max_age_years', 'holder', 'require_fields',
      'require_signature', 'require_stamp', 'require_valid_signature', 'expected_amount', 'expected_iban',
      'expected_reference',
    ]);
  });

  it('uses the same field schemes and CheckResult codes as the validators module', () => {
    expect([...FIELD_SCHEMES].sort()).toEqual([...VALIDATOR_FIELD_SCHEMES].sort());
    for (const scheme of FIELD_SCHEMES) expect(FIELD_SCHEME_INFO[scheme].code, scheme).toBe(SCHEME_CODE[scheme]);
  });

  it('lists the CheckResult code of every field validator among the validators', () => {
    for (const e of entries) {
      for (const fv of e.field_validators) expect(e.validators, `${e.type} ${fv.scheme}`).toContain(FIELD_SCHEME_INFO[fv.scheme].code);
    }
  });

  it('validates iban fields with the iban scheme and checksum', () => {
    for (const e of entries) {
      if (!has(e, 'iban')) continue;
      expect(e.field_validators, e.type).toContainEqual({ field: 'iban', scheme: 'iban' });
      expect(e.validators, e.type).toContain('iban_checksum');
    }
  });
});

describe('checks apply only where the relevant field exists', () => {
  const rules: Record<string, (e: CatalogueEntry) => boolean> = {
    not_expired: (e) => has(e, 'expiry_date'),
    max_age_days: (e) => has(e, 'issue_date'),
    min_age_years: (e) => has(e, 'birth_date'),
    max_age_years: (e) => has(e, 'birth_date'),
    reference_date: (e) => has(e, 'expiry_date', 'issue_date', 'birth_date'),
    holder: (e) => has(e, 'full_name', 'first_name', 'last_name', 'document_number', 'id_number'),
    require_fields: (e) => e.fields.length > 0,
    require_valid_signature: (e) => e.signed_pdf,
    expected_amount: (e) => has(e, 'total_amount', 'amount'),
    expected_iban: (e) => has(e, 'iban'),
    expected_reference: (e) => has(e, 'reference', 'concept'),
  };
  for (const [check, applies] of Object.entries(rules)) {
    it(`${check}`, () => {
      for (const e of entries) expect(e.checks.includes(check as never), `${e.type} ${check}`).toBe(applies(e));
    });
  }

  it('require_valid_signature iff signed_pdf; usually_signed implies signed_pdf', () => {
    for (const e of entries) {
      expect(e.checks.includes('require_valid_signature'), e.type).toBe(e.signed_pdf);
      expect(e.validators.includes('pdf_signature'), e.type).toBe(e.signed_pdf);
      if (e.usually_signed) expect(e.signed_pdf, e.type).toBe(true);
    }
  });

  it('marks the documents issued as signed PDFs', () => {
    for (const id of [
      'es_aeat_tax_compliance_certificate', 'es_aeat_income_tax_certificate', 'es_work_life_report',
      'es_criminal_record_certificate', 'es_sex_offender_certificate', 'es_census_certificate', 'es_sepe_certificate',
    ]) {
      expect(getEntry(id)?.signed_pdf, id).toBe(true);
      expect(getEntry(id)?.usually_signed, id).toBe(true);
    }
    expect(getEntry('es_dni')?.signed_pdf).toBe(false);
  });
});

describe('expiry, MRZ, I-9 and countries', () => {
  it('checks expiry by default for identity, residence and driving documents with an expiry date', () => {
    for (const e of entries) {
      const expected = IDENTITY_LIKE.includes(e.category) && has(e, 'expiry_date');
      // Documents outside these categories (health cards, licences, certificates) are not checked by default:
      // their expiry does not make the document unusable as evidence; callers turn `not_expired` on explicitly.
      expect(e.expiry_check_default, e.type).toBe(expected);
      if (e.expiry_check_default) {
        expect(e.checks, e.type).toContain('not_expired');
        expect(e.validators, e.type).toContain('not_expired');
      }
    }
  });

  it('sets mrz iff the type has an mrz field or mrz validators', () => {
    for (const e of entries) {
      const mrzish = has(e, 'mrz') || e.validators.some((v) => v.startsWith('mrz_'));
      expect(e.mrz !== null, e.type).toBe(mrzish);
      if (e.mrz !== null) expect(MRZ_FORMATS, e.type).toContain(e.mrz);
    }
    expect(getEntry('passport')?.mrz).toBe('TD3');
    expect(getEntry('es_dni')?.mrz).toBe('TD1');
    expect(getEntry('es_dni_front')?.mrz).toBeNull();
  });

  it('gives i9_lists only to USA types, with the I-9 list of each document', () => {
    for (const e of entries) {
      if (e.i9_lists === null) continue;
      expect(e.countries, e.type).toContain('USA');
      expect(e.i9_lists.length, e.type).toBeGreaterThan(0);
      for (const l of e.i9_lists) expect(I9_LISTS, e.type).toContain(l);
      expect(e.validators, e.type).toContain('i9_list');
    }
    const list = (id: string) => getEntry(id)?.i9_lists;
    expect(list('us_passport')).toEqual(['A']);
    expect(list('us_permanent_resident_card')).toEqual(['A']);
    expect(list('us_drivers_license')).toEqual(['B']);
    expect(list('us_social_security_card')).toEqual(['C']);
    expect(list('us_tribal_document')).toEqual(['B', 'C']);
    expect(getEntry('us_drivers_license')?.validators).toEqual(expect.arrayContaining(['aamva_barcode', 'aamva_matches_visual']));
  });

  it('uses valid alpha-3 countries or exactly ["*"]', () => {
    for (const e of entries) {
      if (e.countries.includes('*')) {
        expect(e.countries, e.type).toEqual(['*']);
        continue;
      }
      expect(e.countries.length, e.type).toBeGreaterThan(0);
      for (const c of e.countries) {
        expect(isAlpha3(c), `${e.type} ${c}`).toBe(true);
        expect(c, e.type).toBe(c.toUpperCase());
        expect(ISO_ALPHA3.has(c), `${e.type} ${c}`).toBe(true);
      }
    }
  });

  it('validates Spanish identity numbers with the control letter rule', () => {
    const dni = getEntry('es_dni')!;
    expect(dni.field_validators).toContainEqual({ field: 'document_number', scheme: 'es_dni' });
    expect(dni.validators).toEqual(expect.arrayContaining(['nif_check_digit', 'mrz_checksums', 'not_expired', 'holder', 'age']));
    expect(getEntry('es_tie')!.field_validators).toContainEqual({ field: 'id_number', scheme: 'es_nie' });
  });
});

describe('toDocumentType', () => {
  it('returns exactly the fields of the specification table', () => {
    const dt = toDocumentType(getEntry('es_dni')!, 'en');
    expect(Object.keys(dt).sort()).toEqual([
      'category', 'checks', 'countries', 'description', 'descriptions', 'expiry_check_default', 'field_validators',
      'fields', 'i9_lists', 'label', 'labels', 'mrz', 'object', 'schema', 'signed_pdf', 'slug', 'slugs', 'type',
      'validators',
    ]);
    expect(dt.object).toBe('document_type');
    expect(dt.label).toBe(dt.labels.en);
    expect(dt.description).toBe(dt.descriptions.en);
    expect(dt.slug).toBe(dt.slugs.en);
    expect(JSON.parse(JSON.stringify(dt))).toEqual(dt);
  });

  it('returns copies that callers may mutate', () => {
    const e = getEntry('passport')!;
    const dt = toDocumentType(e, 'es');
    dt.fields.push('x');
    (dt.schema as unknown as ObjectSchema).properties.mrz.description = 'x';
    dt.labels.es = 'x';
    expect(e.fields).not.toContain('x');
    expect(e.schema.properties.mrz.description).not.toBe('x');
    expect(e.labels.es).not.toBe('x');
  });
});

describe('searchEntries', () => {
  it('returns everything sorted by type without filters', () => {
    expect(ids(searchEntries({}))).toEqual(ids(entries));
  });

  it('includes universal types with a country unless strict', () => {
    const esp = searchEntries({ country: 'ESP' });
    expect(ids(esp)).toContain('es_dni');
    expect(ids(esp)).toContain('passport');
    expect(ids(esp)).not.toContain('us_passport');
    const strict = searchEntries({ country: 'ESP', strict: true });
    expect(ids(strict)).toContain('es_dni');
    expect(strict.every((e) => e.countries.includes('ESP'))).toBe(true);
    expect(ids(strict)).toContain('eu_health_insurance_card');
    expect(ids(searchEntries({ country: 'esp' }))).toEqual(ids(esp));
    // A well-formed code without types of its own gets the universal types only.
    expect(searchEntries({ country: 'CAN' }).every((e) => e.countries.includes('*'))).toBe(true);
    expect(searchEntries({ country: 'CAN', strict: true })).toEqual([]);
  });

  it('filters by category', () => {
    const civil = searchEntries({ category: 'civil' });
    expect(civil.length).toBeGreaterThan(0);
    expect(civil.every((e) => e.category === 'civil')).toBe(true);
    expect(ids(searchEntries({ category: 'civil', country: 'ESP', strict: true }))).toContain('es_family_book');
    expect(searchEntries({ category: 'nope' })).toEqual([]);
  });

  it('matches q accent and case insensitively', () => {
    expect(ids(searchEntries({ q: 'nomina' }))).toContain('es_payslip');
    expect(ids(searchEntries({ q: 'NÓMINA' }))).toContain('es_payslip');
    expect(ids(searchEntries({ q: 'Cartão de Cidadão' }))).toContain('pt_citizen_card');
    expect(ids(searchEntries({ q: 'cartao de cidadao' }))).toContain('pt_citizen_card');
    expect(ids(searchEntries({ q: 'dnie' }))).toContain('es_dni');
    expect(ids(searchEntries({ q: 'green card' }))).toContain('us_permanent_resident_card');
    expect(ids(searchEntries({ q: 'CNI' }))).toContain('fr_cni');
    expect(ids(searchEntries({ q: 'rg' }))).toContain('br_rg');
    expect(ids(searchEntries({ q: 'es_dni_back' }))).toEqual(['es_dni_back']);
  });

  it('requires every word of q to match', () => {
    const both = ids(searchEntries({ q: 'pasaporte español' }));
    expect(both).toContain('es_passport');
    expect(both).not.toContain('us_passport');
    expect(ids(searchEntries({ q: 'pasaporte' }))).toContain('us_passport');
    expect(searchEntries({ q: 'pasaporte zzzzqqq' })).toEqual([]);
    expect(ids(searchEntries({ q: '  modelo   303 ' }))).toEqual(['es_modelo_303']);
  });

  it('combines q with country and strict', () => {
    const r = ids(searchEntries({ q: 'passport', country: 'USA', strict: true }));
    expect(r).toContain('us_passport');
    expect(r).not.toContain('passport');
    expect(ids(searchEntries({ q: 'passport', country: 'USA' }))).toContain('passport');
  });
});

describe('helpers', () => {
  it('foldText strips diacritics and lowercases', () => {
    expect(foldText('Ñandú ÁÉÍÓÚ Çà')).toBe('nandu aeiou ca');
    expect(foldText('José Núñez-Peña')).toBe('jose nunez-pena');
  });

  it('isAlpha3 checks the shape of an alpha-3 code', () => {
    expect(isAlpha3('ESP')).toBe(true);
    expect(isAlpha3('esp')).toBe(true);
    expect(isAlpha3('US')).toBe(false);
    expect(isAlpha3('ES1')).toBe(false);
    expect(isAlpha3('ESPA')).toBe(false);
  });

  it('resolveExpect maps type ids and slugs in any language', () => {
    expect(resolveExpect('es_dni')?.type).toBe('es_dni');
    expect(resolveExpect('dni')?.type).toBe('es_dni');
    expect(resolveExpect('spanish-id-card-dni')?.type).toBe('es_dni');
    expect(resolveExpect('passaporte')?.type).toBe('passport');
    expect(resolveExpect('passeport')?.type).toBe('passport');
    for (const e of entries) for (const lang of LANGUAGES) expect(resolveExpect(e.slugs[lang])?.type).toBe(e.type);
    expect(resolveExpect('not_a_type')).toBeUndefined();
    expect(resolveExpect('')).toBeUndefined();
  });
});

describe('generated docs', () => {
  it('docs/document-types.md is up to date (run `node scripts/catalogue-docs.ts`)', () => {
    const onDisk = readFileSync(new URL('docs/document-types.md', root), 'utf8');
    expect(onDisk).toBe(renderDocumentTypesMarkdown());
  });
});

/** The specification's test-mode file names, the file-name grammar, and the reading options (kind, extract, bboxes). */
import { describe, expect, it, vi } from 'vitest';
import { LANGUAGES } from '../../../server/src/catalogue/index.ts';
import { checkIdNumber, checkIban } from '../../../server/src/validators/index.ts';
import { parseScenario, testModeProvider, UNIVERSAL_COUNTRIES } from '../../../server/src/providers/test-mode/index.ts';
import { ENTRIES, REF, failed, input, read, runValidators, values } from './helpers.ts';

const entry = (type: string) => ENTRIES.find((e) => e.type === type)!;

describe('the specification\'s scenarios', () => {
  it('dni_valid.jpg: a valid Spanish DNI', async () => {
    const r = await testModeProvider.read(input('dni_valid.jpg'));
    expect(testModeProvider.name).toBe('mock');
    expect(r.document).toMatchObject({ type: 'es_dni', side: 'both', country: 'ESP' });
    expect(r.warnings).toEqual([]);
    expect(r.failure).toBeNull();
    expect(r.providers.every((p) => p.name === 'mock' && p.region === 'local')).toBe(true);
    expect(r.mode).toBe('vlm');
    const v = values(r);
    expect(checkIdNumber('es_dni', v.document_number).valid).toBe(true);
    expect(v.expiry_date >= REF).toBe(true);
    expect(failed(runValidators(entry('es_dni'), r))).toEqual([]);
  });

  it('dni_expired.jpg: an expired DNI, otherwise valid', () => {
    const r = read('dni_expired.jpg');
    expect(r.document!.type).toBe('es_dni');
    expect(values(r).expiry_date < REF).toBe(true);
    expect(failed(runValidators(entry('es_dni'), r))).toEqual([]);
  });

  it('nie.jpg: a TIE carrying a valid NIE', () => {
    const r = read('nie.jpg');
    expect(r.document!.type).toBe('es_tie');
    expect(checkIdNumber('es_nie', values(r).id_number).valid).toBe(true);
    expect(values(r).nationality).not.toBe('ESP');
    expect(failed(runValidators(entry('es_tie'), r))).toEqual([]);
  });

  it('passport.jpg: a passport with a valid TD3 MRZ', () => {
    const r = read('passport.jpg');
    expect(r.document!.type).toBe('passport');
    expect(values(r).mrz.split('\n').map((l: string) => l.length)).toEqual([44, 44]);
    expect(failed(runValidators(entry('passport'), r))).toEqual([]);
  });

  it('medical_certificate.pdf: a signed and stamped medical certificate', () => {
    const r = read('medical_certificate.pdf');
    expect(r.document!.type).toBe('medical_certificate');
    expect(r.visual).toEqual({ signed: true, stamped: true });
    expect(failed(runValidators(entry('medical_certificate'), r))).toEqual([]);
  });

  it('blurry.jpg: a DNI with warnings blurry and low_quality', () => {
    const r = read('blurry.jpg');
    expect(r.document!.type).toBe('es_dni');
    expect(r.warnings).toEqual(['low_quality', 'blurry']);
    expect(failed(runValidators(entry('es_dni'), r))).toEqual([]);
  });

  it('any other name: the generic unknown type with low confidence', () => {
    for (const name of ['IMG_1234.jpg', 'scan.pdf', 'photo.png']) {
      const r = read(name);
      expect(r.document!.type).toBe('unknown_document');
      expect(r.document!.confidence).toBeLessThan(0.5);
      expect(entry(r.document!.type).generic).toBe(true);
      expect(r.document!.country).toBeNull();
    }
  });
});

describe('grammar', () => {
  it('type ids, aliases, case, separators, paths, extensions', () => {
    expect(parseScenario('DNI_Valid.JPG')).toMatchObject({ type: 'es_dni', modifiers: ['valid'], recognised: true });
    expect(parseScenario('dni-expired.jpeg')).toMatchObject({ type: 'es_dni', modifiers: ['expired'] });
    expect(parseScenario('uploads/2026/es passport bad-checksum.PDF')).toMatchObject({ type: 'es_passport', modifiers: ['bad_checksum'] });
    expect(parseScenario('C:\\docs\\us_drivers_license_expired_glare.jpg')).toMatchObject({ type: 'us_drivers_license', modifiers: ['expired', 'glare'] });
    expect(parseScenario('es_dni_front.jpg').type).toBe('es_dni_front');
    expect(parseScenario('dni_front.jpg')).toMatchObject({ type: 'es_dni', modifiers: ['front'] });
    expect(parseScenario('blurry.jpg')).toMatchObject({ type: 'es_dni', modifiers: ['blurry'] });
    expect(parseScenario('nie.jpg').type).toBe('es_tie');
  });

  it('every slug in every language names its type (with - or _)', () => {
    for (const e of ENTRIES) {
      for (const lang of LANGUAGES) {
        expect(parseScenario(`${e.slugs[lang]}.pdf`).type, e.slugs[lang]).toBe(e.type);
        expect(parseScenario(`${e.slugs[lang].replace(/-/g, '_')}_expired.pdf`), e.slugs[lang]).toMatchObject({ type: e.type, modifiers: ['expired'] });
      }
    }
  });

  it('unknown words are ignored but give another person; modifiers keep the person', () => {
    const s = parseScenario('dni_copy_2_expired.jpg');
    expect(s).toMatchObject({ type: 'es_dni', modifiers: ['expired'], ignored: ['copy', '2'] });
    const a = values(read('dni.jpg'));
    expect(values(read('dni_expired_glare.jpg')).document_number).toBe(a.document_number);
    expect(values(read('dni (2).jpg')).document_number).not.toBe(a.document_number);
    expect(parseScenario('IMG_1234_blurry.jpg')).toMatchObject({ type: 'unknown_document', recognised: false, modifiers: ['blurry'], ignored: ['img', '1234'] });
  });

  it('a country code picks the country of a universal type', () => {
    for (const country of UNIVERSAL_COUNTRIES) {
      const r = read(`invoice_${country.toLowerCase()}.pdf`);
      expect(r.document!.country).toBe(country);
      expect(checkIban(values(r).iban).valid).toBe(true);
    }
    // Ignored on national types.
    expect(read('es_dni_fra.jpg').document!.country).toBe('ESP');
  });

  for (const country of UNIVERSAL_COUNTRIES) {
    it(`every universal type is valid in ${country}`, () => {
      for (const e of ENTRIES.filter((x) => x.countries.includes('*'))) {
        const r = read(`${e.type}_${country.toLowerCase()}.jpg`);
        expect(Object.keys(r.fields)).toEqual([...e.fields]);
        expect(failed(runValidators(e, r)), `${e.type} ${country}`).toEqual([]);
      }
    });
  }
});

describe('reading options', () => {
  it('classification: document and candidates, no fields', () => {
    const r = read('es_payslip.pdf', { kind: 'classification' });
    expect(r.document!.type).toBe('es_payslip');
    expect(r.fields).toEqual({});
    expect(r.candidates).toHaveLength(3);
    expect(r.candidates[0].type).toBe('es_payslip');
    expect(r.candidates.slice(1).every((c) => entry(c.type).category === 'employment')).toBe(true);
  });

  it('extract: false reads no fields', () => {
    expect(read('dni.jpg', { extract: false }).fields).toEqual({});
  });

  it('extract as a JSON Schema: exactly its properties, typed', () => {
    const schema = {
      type: 'object',
      properties: {
        full_name: { type: 'string' },
        iban: { type: 'string' },
        employer_tax_id: { type: 'string' },
        vat_number: { type: 'string', description: 'NIF del emisor' },
        paid_on: { type: 'string', format: 'date' },
        total: { type: 'number' },
        hours: { type: 'integer' },
        kind: { type: 'string', enum: ['monthly', 'extra'] },
        approved: { type: 'boolean' },
        lines: { type: 'array', items: { type: 'object', properties: { concept: { type: 'string' }, amount: { type: 'number' } } } },
      },
    };
    const full = values(read('es_payslip.pdf'));
    const r = read('es_payslip.pdf', { extract: schema });
    const v = values(r);
    expect(Object.keys(v)).toEqual(Object.keys(schema.properties));
    expect(v.full_name).toBe(full.full_name);
    expect(v.iban).toBe(full.iban);
    expect(checkIdNumber('es_nif', v.employer_tax_id).valid).toBe(true);
    expect(v.paid_on).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(typeof v.total).toBe('number');
    expect(Number.isInteger(v.hours)).toBe(true);
    expect(v.kind).toBe('monthly');
    expect(v.approved).toBe(true);
    expect(typeof v.lines[0].concept).toBe('string');
    expect(typeof v.lines[0].amount).toBe('number');
    expect(read('es_payslip.pdf', { extract: schema })).toEqual(r);
  });

  it('precise_bboxes: ocr+llm, with an ocr entry; long PDFs too', () => {
    const r = read('dni.jpg', { precise_bboxes: true });
    expect(r.mode).toBe('ocr+llm');
    expect(r.providers).toEqual([
      { name: 'mock', region: 'local', role: 'ocr' },
      { name: 'mock', region: 'local', role: 'llm' },
      { name: 'mock', region: 'local', role: 'local' },
    ]);
    expect(read('es_work_life_report.pdf', { pages: 12 }).mode).toBe('ocr+llm');
    expect(read('medical_certificate.pdf').providers).toEqual([{ name: 'mock', region: 'local', role: 'llm' }]);
  });

  it('multi-page PDFs spread a long document over its pages', () => {
    const r = read('es_invoice.pdf', { pages: 3 });
    const pages = new Set(Object.values(r.fields).map((f) => f.source!.page));
    expect([...pages].sort()).toEqual([1, 2, 3]);
  });

  it('dates follow the reference date', () => {
    const a = values(read('dni.jpg', { referenceDate: '2030-06-01' }));
    expect(a.expiry_date >= '2030-06-01').toBe(true);
    expect(a.issue_date <= '2030-06-01').toBe(true);
    expect(values(read('dni_expired.jpg', { referenceDate: '2030-06-01' })).expiry_date < '2030-06-01').toBe(true);
  });
});

describe('determinism', () => {
  it('reads neither the clock nor Math.random', () => {
    const before = [read('dni_valid.jpg'), read('es_invoice_fra.pdf', { pages: 2 }), read('IMG_1234.jpg')];
    vi.useFakeTimers();
    vi.setSystemTime(new Date('2041-01-01T00:00:00Z'));
    const spy = vi.spyOn(Math, 'random').mockImplementation(() => {
      throw new Error('Math.random used');
    });
    try {
      expect([read('dni_valid.jpg'), read('es_invoice_fra.pdf', { pages: 2 }), read('IMG_1234.jpg')]).toEqual(before);
    } finally {
      spy.mockRestore();
      vi.useRealTimers();
    }
  });
});

describe('file names of any length', () => {
  it('a name of 200,000 words parses in linear time: the base is sought only among as many leading words as a base can have', () => {
    // Before: every prefix of the words was joined and looked up, quadratic in the words (16,000 words froze the
    // server for 7 s). Quadratic, this name would take hours; linear, it is a few hundred milliseconds.
    const many = `dni_expired_${'zz_'.repeat(200_000)}esp.jpg`;
    const s = parseScenario(many);
    expect(s).toMatchObject({ type: 'es_dni', base: 'dni', modifiers: ['expired'] });
    expect(s.ignored).toHaveLength(200_000);
  }, 20_000);

  it('the longest base names still win over their shorter prefixes', () => {
    // Multi-word slugs and ids: the longest leading run that names a type is taken.
    for (const e of ENTRIES) {
      for (const slug of LANGUAGES.map((l) => e.slugs[l])) {
        expect(parseScenario(`${slug}_expired.pdf`).type, slug).toBe(e.type);
      }
      expect(parseScenario(`${e.type}.pdf`).type).toBe(e.type);
    }
  });
});

/** Each scenario modifier does what docs/test-mode.md says, on every type it applies to. */
import { describe, expect, it } from 'vitest';
import { checkIdNumber, foldName, mrzMatchesVisual, validateIdNumber, validateMrzChecksums, ageYears } from '../../../server/src/validators/index.ts';
import { backFields, checksumTarget, isTwoSided } from '../../../server/src/providers/test-mode/index.ts';
import { ENTRIES, REF, failed, mrzVisual, read, runValidators, values } from './helpers.ts';

const withField = (f: string) => ENTRIES.filter((e) => e.fields.includes(f));

describe('expired', () => {
  for (const entry of withField('expiry_date')) {
    it(`${entry.type}: expiry before the reference date, still coherent`, () => {
      const r = read(`${entry.type}_expired.jpg`);
      const v = values(r);
      expect(v.expiry_date < REF).toBe(true);
      expect(v.issue_date === undefined || v.issue_date < v.expiry_date).toBe(true);
      expect(failed(runValidators(entry, r))).toEqual([]);
    });
  }
});

describe('old', () => {
  it('moves the issue date of a certificate more than a year back', () => {
    const v = values(read('es_criminal_record_certificate_old.pdf'));
    expect(ageYears(v.issue_date, REF)).toBeGreaterThanOrEqual(1);
  });
});

describe('bad_checksum', () => {
  for (const entry of ENTRIES) {
    const target = checksumTarget(entry);
    if (!target) continue;
    it(`${entry.type}: ${target.field} fails its validator`, () => {
      const r = read(`${entry.type}_bad_checksum.jpg`);
      const v = values(r);
      if (target.scheme) {
        const res = validateIdNumber(target.scheme, v[target.field], { state: v.region, reference_date: REF });
        expect(res[0].passed).toBe(false);
        expect(checkIdNumber(target.scheme, v[target.field], { state: v.region }).valid).toBe(false);
        // Everything else still passes (an MRZ repeating the number stays internally consistent).
        const others = runValidators(entry, r).filter((x) => !x.fields?.includes(target.field) && !(x.code === 'mrz_matches_visual' && target.field === 'document_number'));
        expect(failed(others)).toEqual([]);
      } else {
        expect(validateMrzChecksums(v.mrz, { referenceDate: REF }).passed).toBe(false);
      }
      // Only the check character changed: the valid reading differs in that field only (and the MRZ repeating it).
      const valid = values(read(`${entry.type}.jpg`));
      const changed = Object.keys(v).filter((k) => JSON.stringify(v[k]) !== JSON.stringify(valid[k]));
      expect(changed.filter((k) => !['mrz', 'barcode_data', 'personal_number', target.field].includes(k))).toEqual([]);
    });
  }

  it('gives a DNI a wrong letter, with the MRZ repeating it', () => {
    const v = values(read('dni_bad_checksum.jpg'));
    expect(checkIdNumber('es_dni', v.document_number).reason).toBe('invalid_letter');
    expect(v.mrz).toContain(v.document_number);
    expect(validateMrzChecksums(v.mrz, { referenceDate: REF }).passed).toBe(true);
  });
});

describe('underage', () => {
  for (const entry of withField('birth_date')) {
    it(`${entry.type}: holder aged 16`, () => {
      const r = read(`${entry.type}_underage.jpg`, { holder: { birth_date: '1980-01-01' } });
      const v = values(r);
      expect(ageYears(v.birth_date, REF)).toBe(16);
      expect(failed(runValidators(entry, r))).toEqual([]);
    });
  }
});

describe('holder', () => {
  const holder = { first_name: 'María José', last_name: 'Núñez de la Fuente', document_number: '12345678A', birth_date: '1988-07-21' };

  it('the simulated DNI holder is the caller\'s holder, check letter recomputed', () => {
    const r = read('dni.jpg', { holder });
    const v = values(r);
    expect(v.first_name).toBe('MARÍA JOSÉ');
    expect(v.last_name).toBe('NÚÑEZ');
    expect(v.second_last_name).toBe('DE LA FUENTE');
    expect(v.birth_date).toBe('1988-07-21');
    expect(v.document_number).toBe('12345678Z');
    expect(failed(runValidators(ENTRIES.find((e) => e.type === 'es_dni')!, r))).toEqual([]);
  });

  it('full_name only, on a NIE card and a certificate', () => {
    const h = { full_name: 'Ana Belén García López', document_number: 'X1234567A' };
    const tie = values(read('nie.jpg', { holder: h }));
    expect(foldName(`${tie.first_name} ${tie.last_name}`)).toBe(foldName(h.full_name));
    expect(tie.id_number).toBe('X1234567L');
    const cert = values(read('es_criminal_record_certificate.pdf', { holder: h }));
    expect(cert.full_name).toBe('Ana Belén García López');
    expect(cert.id_number).toBe('X1234567L');
  });

  it('passport number goes to document_number', () => {
    const v = values(read('passport.jpg', { holder: { full_name: 'John Smith', document_number: 'XK1234567' } }));
    expect(v.document_number).toBe('XK1234567');
    expect(v.first_name).toBe('JOHN');
    expect(v.last_name).toBe('SMITH');
  });

  for (const entry of ENTRIES.filter((e) => e.checks.includes('holder'))) {
    it(`${entry.type}: holder names and birth date are used, validators still pass`, () => {
      const r = read(`${entry.type}.jpg`, { holder });
      const v = values(r);
      const printed = foldName([v.full_name, v.first_name, v.last_name, v.second_last_name, v.grantor_name].filter(Boolean).join(' '));
      expect(printed).toContain('nunez');
      if (v.birth_date) expect(v.birth_date).toBe('1988-07-21');
      expect(failed(runValidators(entry, r))).toEqual([]);
    });

    it(`${entry.type}: mismatch_holder simulates someone else`, () => {
      const v = values(read(`${entry.type}_mismatch_holder.jpg`, { holder }));
      const printed = foldName([v.full_name, v.first_name, v.last_name, v.second_last_name, v.grantor_name].filter(Boolean).join(' '));
      expect(printed).not.toContain('nunez');
      expect(printed).not.toContain('maria jose');
      if (v.birth_date) expect(v.birth_date).not.toBe('1988-07-21');
      for (const f of ['document_number', 'id_number', 'tax_id']) if (v[f]) expect(String(v[f]).replace(/\W/g, '')).not.toContain('12345678');
    });
  }
});

describe('mismatch_mrz', () => {
  for (const entry of ENTRIES.filter((e) => e.mrz)) {
    it(`${entry.type}: checksums pass, visual comparison fails`, () => {
      const v = values(read(`${entry.type}_mismatch_mrz.jpg`));
      expect(validateMrzChecksums(v.mrz, { referenceDate: REF }).passed).toBe(true);
      expect(mrzMatchesVisual(v.mrz, mrzVisual(entry, v), { referenceDate: REF }).passed).toBe(false);
    });
  }
});

describe('quality warnings and confidence', () => {
  const cases: Array<[string, string[]]> = [
    ['blurry', ['low_quality', 'blurry']],
    ['low_quality', ['low_quality']],
    ['glare', ['glare']],
    ['cropped', ['cropped']],
    ['screen', ['screen_photo_suspected']],
    ['photocopy', ['photocopy_suspected']],
    ['edited', ['edited_suspected']],
    ['multiple', ['multiple_documents']],
    ['side_missing', ['side_missing']],
    ['language_mismatch', ['language_mismatch']],
  ];
  for (const [mod, warnings] of cases) {
    it(`${mod} -> ${warnings.join(', ')}`, () => {
      expect(read(`es_dni_${mod}.jpg`).warnings).toEqual(warnings);
    });
  }

  it('warnings combine in the specification order', () => {
    expect(read('passport_glare_blurry_cropped.jpg').warnings).toEqual(['low_quality', 'blurry', 'cropped', 'glare']);
  });

  it('low_confidence: document 0.42, fields low', () => {
    const r = read('es_payslip_low_confidence.pdf');
    expect(r.document!.confidence).toBe(0.42);
    for (const f of Object.values(r.fields)) expect(f.confidence).toBeLessThanOrEqual(0.6);
  });

  it('blurry lowers confidences but keeps the type above 0.5', () => {
    const r = read('dni_blurry.jpg');
    expect(r.document!.confidence).toBeGreaterThan(0.5);
    expect(r.document!.confidence).toBeLessThan(0.9);
    for (const f of Object.values(r.fields)) expect(f.confidence).toBeLessThan(0.9);
  });
});

describe('failure and latency', () => {
  it('failed: processing_failed, nothing read', () => {
    const r = read('dni_failed.jpg');
    expect(r.failure?.code).toBe('processing_failed');
    expect(r.document).toBeNull();
    expect(r.fields).toEqual({});
    expect(r.providers).toEqual([{ name: 'mock', region: 'local', role: 'llm' }, { name: 'mock', region: 'local', role: 'local' }]);
  });

  it('slow: 45 s simulated, otherwise a normal reading', () => {
    const r = read('passport_slow.jpg');
    expect(r.latencyMs).toBe(45_000);
    expect(r.failure).toBeNull();
    expect(read('passport.jpg').latencyMs).toBeLessThan(30_000);
  });
});

describe('sides', () => {
  for (const entry of ENTRIES.filter(isTwoSided)) {
    it(`${entry.type}: both by default, front / back / side_missing`, () => {
      // `es_dni_front` names a type of its own: the DNI's side modifiers go on the alias (`dni_front.jpg`).
      const base = entry.type === 'es_dni' ? 'dni' : entry.type;
      expect(read(`${base}.jpg`).document!.side).toBe('both');
      const front = read(`${base}_front.jpg`);
      expect(front.document!.side).toBe('front');
      for (const f of backFields(entry)) expect(front.fields[f].value, f).toBeNull();
      expect(Object.keys(front.fields)).toEqual([...entry.fields]);
      const back = read(`${base}_back.jpg`);
      expect(back.document!.side).toBe('back');
      for (const f of backFields(entry)) expect(back.fields[f].value, f).not.toBeNull();
      const missing = read(`${base}_side_missing.jpg`);
      expect(missing.document!.side).toBe('front');
      expect(missing.warnings).toContain('side_missing');
    });
  }

  it('passports and certificates have no side', () => {
    expect(read('passport.jpg').document!.side).toBeNull();
    expect(read('passport_front.jpg').document!.side).toBeNull();
    expect(read('medical_certificate.pdf').document!.side).toBeNull();
    expect(read('es_dni_front.jpg').document!.side).toBe('front');
    expect(read('es_dni_back.jpg').document!.side).toBe('back');
  });

  it('a two-page PDF of a card puts the back on page 2', () => {
    const r = read('dni.pdf', { pages: 2, mime: 'application/pdf' });
    expect(r.fields.mrz.source!.page).toBe(2);
    expect(r.fields.address.source!.page).toBe(2);
    expect(r.fields.document_number.source!.page).toBe(1);
  });
});

describe('incomplete, unsigned, unstamped', () => {
  it('incomplete: the last two fields (MRZ aside) are null', () => {
    for (const type of ['es_dni', 'es_invoice', 'es_criminal_record_certificate', 'us_drivers_license']) {
      const entry = ENTRIES.find((e) => e.type === type)!;
      const r = read(`${type}_incomplete.jpg`);
      const nulls = Object.entries(r.fields).filter(([, f]) => f.value === null).map(([k]) => k);
      expect(nulls).toEqual(entry.fields.filter((f) => f !== 'mrz' && f !== 'barcode_data').slice(-2));
      expect(r.fields[nulls[0]]).toEqual({ value: null, confidence: 0, source: null });
    }
  });

  it('signed and stamped for certificates, null for ID cards, false when told', () => {
    expect(read('medical_certificate.pdf').visual).toEqual({ signed: true, stamped: true });
    expect(read('dni.jpg').visual).toEqual({ signed: null, stamped: null });
    expect(read('medical_certificate_unsigned.pdf').visual).toEqual({ signed: false, stamped: true });
    expect(read('medical_certificate_unstamped_unsigned.pdf').visual).toEqual({ signed: false, stamped: false });
  });
});

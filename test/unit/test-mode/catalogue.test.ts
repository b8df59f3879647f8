/**
 * Every catalogue type, read from `<type>.jpg` (and `<type>.pdf` for document-like types): the reading names the
 * type, carries exactly its fields with schema-valid values, and passes every validator that applies.
 */
import { describe, expect, it } from 'vitest';
import { ENTRIES, FUTURE_DATES, REF, failed, pdfish, read, runValidators, schemaErrors, values } from './helpers.ts';

describe('test mode: every catalogue type', () => {
  it('covers the whole catalogue', () => {
    expect(ENTRIES.length).toBeGreaterThanOrEqual(196);
  });

  for (const entry of ENTRIES) {
    const files = [`${entry.type}.jpg`, ...(pdfish(entry) ? [`${entry.type}.pdf`] : [])];
    for (const file of files) {
      it(`${file} is a valid ${entry.type}`, () => {
        const r = read(file, file.endsWith('.pdf') ? { pages: 2 } : {});
        expect(r.failure).toBeNull();
        expect(r.document?.type).toBe(entry.type);
        expect(r.document!.confidence).toBeGreaterThanOrEqual(entry.generic ? 0.3 : 0.9);
        expect(r.candidates[0]).toEqual({ type: entry.type, confidence: r.document!.confidence });
        expect(r.candidates).toHaveLength(3);
        expect(r.candidates[1].confidence).toBeLessThan(r.document!.confidence);
        expect(new Set(r.candidates.map((c) => c.type)).size).toBe(3);
        const country = r.document!.country;
        if (!entry.countries.includes('*')) expect(entry.countries).toContain(country);
        else if (!entry.generic) expect(country).toBe('ESP');
        expect(Object.keys(r.fields)).toEqual([...entry.fields]);
        const v = values(r);
        expect(schemaErrors(entry, v)).toEqual([]);
        expect(failed(runValidators(entry, r))).toEqual([]);
        for (const [name, f] of Object.entries(r.fields)) {
          expect(f.confidence, name).toBeGreaterThanOrEqual(entry.generic ? 0.45 : 0.9);
          expect(f.confidence, name).toBeLessThanOrEqual(0.99);
          expect(f.source?.page, name).toBeGreaterThanOrEqual(1);
          expect(f.source?.page, name).toBeLessThanOrEqual(file.endsWith('.pdf') ? 2 : 1);
          const [x0, y0, x1, y1] = f.source!.bbox!;
          expect(0 <= x0 && x0 < x1 && x1 <= 1 && 0 <= y0 && y0 < y1 && y1 <= 1, `${name} bbox ${f.source!.bbox}`).toBe(true);
        }
        // Distinct boxes per field on the same page.
        const boxes = Object.values(r.fields).map((f) => `${f.source!.page}:${f.source!.bbox!.join(',')}`);
        expect(new Set(boxes).size).toBe(boxes.length);
        // Coherent dates: after the birth, not after the reference date unless they are validity or period ends.
        for (const name of entry.fields.filter((f) => entry.schema.properties[f].format === 'date')) {
          if (v.birth_date && name !== 'birth_date') expect(v[name] >= v.birth_date, `${name} ${v[name]} >= birth ${v.birth_date}`).toBe(true);
          if (!FUTURE_DATES.has(name)) expect(v[name] <= REF, `${name} ${v[name]} <= ${REF}`).toBe(true);
        }
        if (v.expiry_date) expect(v.expiry_date >= REF).toBe(true);
        if (v.issue_date && v.expiry_date) expect(v.issue_date < v.expiry_date).toBe(true);
        // Deterministic.
        expect(read(file, file.endsWith('.pdf') ? { pages: 2 } : {})).toEqual(r);
      });
    }
  }
});

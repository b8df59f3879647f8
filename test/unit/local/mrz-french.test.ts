/**
 * The French identity card of 1988-2021 (2 x 36, `IDFRA...`, not ICAO 9303): the local reader decodes it with its own
 * layout and check digits (card number, birth date, a composite over both lines; no expiry date, no nationality
 * field), tells it from other 2 x 36 zones, and id-documents.ts makes it `fr_cni_old` with its fields. The images are
 * rendered at test time (support-mrz.ts renderIdCard): no French card is in the development set.
 */
import { describe, expect, it } from 'vitest';
import { decode } from '../../../server/src/providers/local/mrz/decode.ts';
import { readMrz } from '../../../server/src/providers/local/mrz/index.ts';
import { readingFromMrz } from '../../../server/src/providers/local/id-documents.ts';
import { validateMrzChecksums } from '../../../server/src/validators/mrz.ts';
import { frenchZone, loadPage, probsFor, renderIdCard } from './support-mrz.ts';

const REF = '2026-11-24';

const SPECIMEN = ['IDFRABERTHIER<<<<<<<<<<<<<<<<<<<<<<<', '9409923102854CORINNE<<<<<<<6512068F4'];

describe('French 1988-2021 identity card: decoding (synthetic probabilities)', () => {
  it('builds the public specimen with the right check digits', () => {
    expect(frenchZone({ surname: 'BERTHIER', given: 'CORINNE', issue: '9409', dept: '923', seq: '10285', birth: '651206', sex: 'F' })).toEqual(SPECIMEN);
  });

  it('reads a clean zone as printed, valid by its own rules', () => {
    const d = decode('FRENCH_NATIONAL_ID', probsFor(SPECIMEN));
    expect(d).toMatchObject({ lines: SPECIMEN, valid: true, gate: true, repaired: 0 });
    expect(validateMrzChecksums(d.lines).outcome).toBe('passed');
  });

  it('as ICAO TD2 the same cells do not pass the gate, and another 2 x 36 zone is not French', () => {
    expect(decode('TD2', probsFor(SPECIMEN)).gate).toBe(false);
    const german = ['IDD<<MUSTERMANN<<ERIKA<<<<<<<<<<<<<<', '1220001297D<<6408125<1010315<<<<<<<8'];
    expect(decode('FRENCH_NATIONAL_ID', probsFor(german)).gateReasons).toContain('document_code');
  });

  it('repairs a misread card-number digit with its check digit, not a confident wrong one', () => {
    // the 3 of the department read as 8 (a likely OCR-B confusion), the check digit read surely
    const d = decode('FRENCH_NATIONAL_ID', probsFor(SPECIMEN, { '1:6': { '8': 0.55, '3': 0.4 } }));
    expect(d.lines).toEqual(SPECIMEN);
    expect(d.valid).toBe(true);
    // a forged birth date read with confidence stays invalid (the check digits are never changed)
    const forged = [SPECIMEN[0], SPECIMEN[1].slice(0, 27) + '661206' + SPECIMEN[1].slice(33)];
    const f = decode('FRENCH_NATIONAL_ID', probsFor(forged));
    expect(f.lines).toEqual(forged);
    expect(f.valid).toBe(false);
    expect(validateMrzChecksums(f.lines).outcome).toBe('failed');
  });

  it('the administrative code on line 1 is repaired through the composite, names never are', () => {
    const zone = frenchZone({ surname: 'DUPONT', given: 'JEAN PIERRE', issue: '1203', dept: '750', seq: '41234', birth: '780214', sex: 'M', admin: '750123' });
    // the 1 of the administrative code read as I-ish 7: the composite, read surely, puts the 1 back
    const d = decode('FRENCH_NATIONAL_ID', probsFor(zone, { '0:34': { '7': 0.5, '2': 0.45 } }));
    expect(d.lines).toEqual(zone);
    // a name letter read wrong (E for P) is not changed to satisfy the composite: the zone stays invalid, and the
    // letter's confidence says it was unsure
    const n = decode('FRENCH_NATIONAL_ID', probsFor(zone, { '0:7': { E: 0.5, P: 0.45 } }));
    expect(n.lines[0].slice(5, 11)).toBe('DUEONT');
    expect(n.valid).toBe(false);
    expect(n.conf[0][7]).toBeLessThan(0.6);
  });

  it('gate: an impossible issue month or birth date stops the zone', () => {
    const bad = frenchZone({ surname: 'BERTHIER', given: 'CORINNE', issue: '9413', dept: '923', seq: '10285', birth: '651206', sex: 'F' });
    expect(decode('FRENCH_NATIONAL_ID', probsFor(bad)).gateReasons).toContain('issue_date');
  });
});

describe('French 1988-2021 identity card: from a rendered card image to fr_cni_old', () => {
  const zone = frenchZone({ surname: 'MARTIN', given: 'SOPHIE ANNE', issue: '0511', dept: '692', seq: '00318', birth: '830417', sex: 'F', admin: '690032' });
  const printed = ['Nom: MARTIN', 'Prénom(s): SOPHIE, ANNE', 'Sexe: F   Né(e) le: 17.04.1983', 'à: LYON 3E (69)'];

  it('reads the zone of a photographed card (tilted, JPEG) exactly, and of a flat scan', async () => {
    for (const spec of [{ margin: 0.2, angle: 5, jpegQuality: 75 }, { width: 1200 }]) {
      const r = await readMrz(await loadPage(await renderIdCard({ lines: zone, printed, ...spec })));
      expect(r, JSON.stringify(spec)).not.toBeNull();
      expect(r!.format).toBe('FRENCH_NATIONAL_ID');
      expect(r!.lines).toEqual(zone);
      expect(r!.valid).toBe(true);
    }
  }, 30_000);

  it('gives fr_cni_old with the surname from line 1, the given names from line 2, nationality FRA', async () => {
    const r = (await readMrz(await loadPage(await renderIdCard({ lines: zone, printed, margin: 0.2, angle: -3 }))))!;
    const reading = readingFromMrz({ lines: r.lines, charConfidence: r.charConfidence, lineBoxes: r.lineBoxes, page: 1 }, { expect: null, referenceDate: REF })!;
    expect(reading.document).toMatchObject({ type: 'fr_cni_old', country: 'FRA' });
    expect(reading.document.confidence).toBeGreaterThanOrEqual(0.9);
    const v = Object.fromEntries(Object.entries(reading.fields).map(([k, f]) => [k, f.value]));
    expect(v).toMatchObject({ document_number: '051169200318', last_name: 'MARTIN', first_name: 'SOPHIE ANNE', sex: 'F', nationality: 'FRA', birth_date: '1983-04-17' });
    expect(v.expiry_date).toBeUndefined(); // not in the zone: never invented
    expect(reading.fields.first_name.chars).toHaveLength('SOPHIE ANNE'.length);
    expect(reading.fields.last_name.source!.bbox![1]).toBeLessThan(reading.fields.first_name.source!.bbox![1]);
  }, 30_000);
});

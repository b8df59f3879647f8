/**
 * The texts Cotejo writes come in the four languages of `language`: every message (reasons, checks, failures,
 * warnings in words) and every label of the human-readable exports, with the same placeholders in each.
 */
import { describe, expect, it } from 'vitest';
import { failureMessage, MESSAGE_KEYS, t, warningText } from '../../server/src/domain/analysis/messages.ts';
import { LABELS } from '../../server/src/exports/index.ts';
import { simulateReading } from '../../server/src/providers/test-mode/index.ts';
import type { ReadInput } from '../../server/src/providers/types.ts';

const LANGUAGES = ['es', 'en', 'pt', 'fr'] as const;
const SPANISH_LETTERS = /[ñ¿¡áíóú]/i;
const WARNINGS = ['low_quality', 'blurry', 'cropped', 'glare', 'screen_photo_suspected', 'photocopy_suspected', 'edited_suspected', 'multiple_documents', 'side_missing', 'language_mismatch'];
const placeholders = (s: string) => [...s.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort();

describe('messages', () => {
  it.each(MESSAGE_KEYS)('%s: four languages, English not Spanish, the same placeholders', (key) => {
    const texts = LANGUAGES.map((l) => t(l, key));
    for (const text of texts) expect(text.trim()).not.toBe('');
    const [es, en] = texts;
    expect(en).not.toBe(es);
    expect(en).not.toMatch(SPANISH_LETTERS);
    for (const text of texts) expect(placeholders(text)).toEqual(placeholders(es));
  });

  it('names every quality warning of the specification in words', () => {
    for (const w of WARNINGS) {
      for (const l of LANGUAGES) expect(warningText(l, w)).toMatch(/^[\p{L} ']+$/u);
      expect(warningText('es', w)).not.toBe(warningText('en', w));
    }
    expect(warningText('en', 'not_a_warning')).toBe('not_a_warning');
  });

  it('failure messages: in the language; Spanish keeps the detail it was given', () => {
    expect(failureMessage('es', 'file_url_unreachable', 'No se pudo descargar file_url: HTTP 404.')).toBe('No se pudo descargar file_url: HTTP 404.');
    expect(failureMessage('en', 'file_url_unreachable', 'No se pudo descargar file_url: HTTP 404.')).toBe('file_url could not be downloaded.');
    expect(failureMessage('fr', 'unreadable_pdf')).toBe('Le PDF ne peut pas être lu.');
    expect(failureMessage('pt', 'some_new_code', 'Algo en español.')).toBe(t('pt', 'failure.processing_failed'));
  });
});

describe('export labels', () => {
  it('every label and every status word exists in the four languages', () => {
    const keys = Object.keys(LABELS.es).sort();
    for (const l of LANGUAGES) {
      expect(Object.keys(LABELS[l]).sort()).toEqual(keys);
      for (const map of ['statuses', 'verdicts', 'severities', 'signatures'] as const) {
        expect(Object.keys(LABELS[l][map]).sort()).toEqual(Object.keys(LABELS.es[map]).sort());
      }
    }
    const english = JSON.stringify(LABELS.en, (_k, v) => (typeof v === 'function' ? v(2) : v));
    expect(english).not.toMatch(SPANISH_LETTERS);
  });
});

describe('test mode: what Cotejo simulates follows the language', () => {
  const input = (filename: string, language: (typeof LANGUAGES)[number]): ReadInput => ({
    bytes: new Uint8Array(),
    filename,
    mime: 'image/jpeg',
    pages: 1,
    kind: 'analysis',
    expect: null,
    extract: true,
    language,
    holder: null,
    referenceDate: '2025-06-01',
    precise_bboxes: false,
  });

  it('an unidentified document prints a heading in the language asked, the same heading in each', () => {
    for (const name of ['scan_0001.jpg', 'IMG_20250101.jpg', 'foto.png', 'whatever.pdf', 'x.jpg']) {
      const titles = LANGUAGES.map((l) => simulateReading(input(name, l)).fields.document_title.value as string);
      expect(new Set(titles).size).toBeGreaterThanOrEqual(3);
      expect(titles.some((x) => /identifi/i.test(x))).toBe(false);
      // Nothing else of the document changes with the language.
      const [es, en] = LANGUAGES.slice(0, 2).map((l) => simulateReading(input(name, l)).fields);
      expect({ ...en, document_title: null }).toEqual({ ...es, document_title: null });
    }
  });

  it('a simulated failure says so in the language asked', () => {
    const messages = LANGUAGES.map((l) => simulateReading(input('dni_failed.jpg', l)).failure!.message);
    expect(new Set(messages).size).toBe(4);
  });
});

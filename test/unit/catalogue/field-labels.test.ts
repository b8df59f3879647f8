import { describe, expect, it } from 'vitest';
import { FIELD_LABELS, fieldLabel } from '../../../server/src/catalogue/field-labels.ts';
import { FIELD_DICTIONARY } from '../../../server/src/catalogue/fields.ts';
import { LANGUAGES } from '../../../server/src/catalogue/vocabulary.ts';
import { partName } from '../../../server/src/domain/analysis/check-messages.ts';

/** Fields whose label is the same word in English and Spanish (acronyms, loanwords). */
const SAME_IN_EN_AND_ES = new Set(['iban', 'bic', 'club_name']);

describe('field labels', () => {
  it('label every dictionary field in the four languages, and nothing else', () => {
    expect(Object.keys(FIELD_LABELS).sort()).toEqual(Object.keys(FIELD_DICTIONARY).sort());
    for (const [name, labels] of Object.entries(FIELD_LABELS)) {
      for (const language of LANGUAGES) {
        const label = labels[language];
        expect(label, `${name} (${language})`).toBeTypeOf('string');
        expect(label.trim(), `${name} (${language})`).toBe(label);
        expect(label.length, `${name} (${language})`).toBeGreaterThan(0);
        expect(label, `${name} (${language}) is words, not the snake_case name`).not.toMatch(/_/);
      }
    }
  });

  it('have an English label that differs from the Spanish one where the words differ', () => {
    for (const [name, labels] of Object.entries(FIELD_LABELS)) {
      if (SAME_IN_EN_AND_ES.has(name)) expect(labels.en, name).toBe(labels.es);
      else expect(labels.en, name).not.toBe(labels.es);
    }
  });

  it('fieldLabel gives the label in the language, and an unknown field its own name', () => {
    expect(fieldLabel('document_number', 'es')).toBe('Número de documento');
    expect(fieldLabel('document_number', 'en')).toBe('Document number');
    expect(fieldLabel('document_number', 'pt')).toBe('Número do documento');
    expect(fieldLabel('document_number', 'fr')).toBe('Numéro du document');
    expect(fieldLabel('birth_date', 'es')).toBe('Fecha de nacimiento');
    expect(fieldLabel('my_custom_field', 'fr')).toBe('my_custom_field');
    expect(fieldLabel('toString', 'en')).toBe('toString');
  });

  it('name a field in a check message by its label when there is no part message, mid-sentence', () => {
    // Own part message first.
    expect(partName('es', 'document_number')).toBe('número de documento');
    // Then the field label, lower-cased unless it starts with an acronym.
    expect(partName('es', 'city')).toBe('localidad');
    expect(partName('en', 'plate_number')).toBe('registration number');
    expect(partName('fr', 'due_date')).toBe("date d'échéance");
    expect(partName('es', 'tax_id')).toBe('NIF');
    expect(partName('en', 'bic')).toBe('BIC');
    // Then the name in words.
    expect(partName('pt', 'some_part')).toBe('some part');
  });
});
